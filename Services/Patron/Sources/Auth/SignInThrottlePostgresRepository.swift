import Foundation
import Logging
import PostgresNIO
import ServiceSupport

/// Sign-in throttling (`SignInThrottlePolicy`) kept in the database, so that every patron replica agrees and parallel
/// attempts are counted one after the other under row locks.
struct SignInThrottlePostgresRepository: Sendable {
    let client: PostgresClient
    let policy: SignInThrottlePolicy

    /// One attempt under way: counted as a failure until `succeeded` takes it back.
    struct Attempt: Sendable {
        var login: String
        var address: String?
        var keys: [String]
    }

    static func loginKey(_ login: String) -> String { "login:" + String(login.lowercased().prefix(254)) }
    static func pairKey(_ login: String, _ address: String) -> String { "pair:" + String(login.lowercased().prefix(254)) + "|" + address }
    static func addressKey(_ address: String) -> String { "address:" + address }

    /// Counts the attempt, or throws `AuthError.throttled` (counting nothing) when a limit refuses it.
    func begin(login: String, address clientAddress: String?, logger: Logger) async throws -> Attempt {
        // An IPv6 client picks any address of its /64: counted by the /64, as one IPv4 address is.
        let address = clientAddress.map(IPAddressBlock.limitKey)
        let loginKey = Self.loginKey(login)
        let pairKey = address.map { Self.pairKey(login, $0) }
        let addressKey = address.map(Self.addressKey)
        let keys = [loginKey] + [pairKey, addressKey].compactMap { $0 }
        let policy = self.policy
        return try await client.transaction(logger: logger) { connection in
            // Rows are created, then locked in key order, so that concurrent attempts queue instead of deadlocking.
            try await connection.query(
                "INSERT INTO sign_in_failures (key) SELECT unnest(\(keys)::text[]) ON CONFLICT (key) DO NOTHING",
                logger: logger
            )
            var records: [String: SignInThrottlePolicy.Record] = [:]
            let rows = try await connection.query(
                """
                SELECT key, failures, last_failure_at, window_started_at, now() FROM sign_in_failures
                WHERE key = ANY(\(keys)) ORDER BY key FOR UPDATE
                """,
                logger: logger
            )
            var now = Date()
            for try await (key, failures, last, window, dbNow) in rows.decode((String, Int, Date, Date, Date).self) {
                now = dbNow
                if failures > 0 { records[key] = .init(failures: failures, lastFailureAt: last, windowStartedAt: window) }
            }
            var known = false
            if let address {
                let found = try await connection.query(
                    """
                    SELECT 1 FROM sign_in_addresses WHERE login = \(String(login.lowercased().prefix(254))) AND address = \(address)
                    AND signed_in_at > now() - make_interval(secs => \(policy.knownAddressFor))
                    """,
                    logger: logger
                )
                for try await _ in found { known = true }
            }
            let decision = policy.decide(
                login: records[loginKey],
                pair: pairKey.flatMap { records[$0] },
                address: addressKey.flatMap { records[$0] },
                addressIsKnown: known,
                now: now
            )
            if case .refuse(let scope, let until) = decision {
                throw AuthError.throttled(scope: scope, until: until, retryAfter: max(1, Int((until.timeIntervalSince(now)).rounded(.up))))
            }
            for key in keys {
                let next = policy.failing(records[key], isAddress: key == addressKey, now: now)
                try await connection.query(
                    """
                    UPDATE sign_in_failures SET failures = \(next.failures), last_failure_at = \(next.lastFailureAt),
                        window_started_at = \(next.windowStartedAt) WHERE key = \(key)
                    """,
                    logger: logger
                )
            }
            return Attempt(login: login, address: address, keys: keys)
        }
    }

    /// A patron who just signed up from `clientAddress` signed in from it: their logins are known there, so an address
    /// spraying at the same time (a branch's Wi-Fi) does not refuse them.
    func signedUp(logins: [String], from clientAddress: String, logger: Logger) async throws {
        let address = IPAddressBlock.limitKey(clientAddress)
        let logins = logins.map { String($0.lowercased().prefix(254)) }
        try await client.query(
            """
            INSERT INTO sign_in_addresses (login, address) SELECT unnest(\(logins)::text[]), \(address)
            ON CONFLICT (login, address) DO UPDATE SET signed_in_at = now()
            """,
            logger: logger
        )
    }

    /// Takes a successful attempt back: the pair's failures are cleared, the login's and the address's counts lose
    /// this attempt, and the address becomes one this login signs in from.
    func succeeded(_ attempt: Attempt, logger: Logger) async throws {
        try await client.transaction(logger: logger) { connection in
            try await connection.query(
                """
                UPDATE sign_in_failures SET failures = CASE WHEN key LIKE 'pair:%' THEN 0 ELSE greatest(failures - 1, 0) END
                WHERE key = ANY(\(attempt.keys))
                """,
                logger: logger
            )
            if let address = attempt.address {
                try await connection.query(
                    """
                    INSERT INTO sign_in_addresses (login, address) VALUES (\(String(attempt.login.lowercased().prefix(254))), \(address))
                    ON CONFLICT (login, address) DO UPDATE SET signed_in_at = now()
                    """,
                    logger: logger
                )
            }
        }
    }

    /// Takes back an attempt that was never judged (the bcrypt queue was full): every count loses it, and nothing is learnt.
    func withdraw(_ attempt: Attempt, logger: Logger) async throws {
        try await client.query(
            "UPDATE sign_in_failures SET failures = greatest(failures - 1, 0) WHERE key = ANY(\(attempt.keys))",
            logger: logger
        )
    }

    /// Forgets records that no limit looks at any more (run by the expiry job).
    func sweep(logger: Logger) async throws {
        try await client.query(
            """
            DELETE FROM sign_in_failures WHERE last_failure_at < now() - make_interval(secs => \(max(policy.forgetAfter, policy.addressWindow)))
            """,
            logger: logger
        )
        try await client.query(
            "DELETE FROM sign_in_addresses WHERE signed_in_at < now() - make_interval(secs => \(policy.knownAddressFor))",
            logger: logger
        )
    }
}
