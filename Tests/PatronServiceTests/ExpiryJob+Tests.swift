import Logging
import PostgresNIO
import ServiceSupport

@testable import PatronService

extension ExpiryJob {
    /// A job over a migrated database with `rules` and the default sign-in policy, as one replica runs it.
    static func forTests(_ postgres: PostgresClient, rules: CirculationRules, logger: Logger) -> ExpiryJob {
        let circulation = CirculationPostgresRepository(client: postgres, rules: rules)
        return ExpiryJob(
            client: postgres,
            circulation: circulation,
            changes: Circulation(store: circulation, rules: rules),
            throttle: SignInThrottlePostgresRepository(client: postgres, policy: .init()),
            interval: 1,
            schema: .migrated,
            logger: logger
        )
    }
}
