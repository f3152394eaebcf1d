import Logging
import PostgresNIO

extension PostgresClient {
    /// `withTransaction` that throws the closure's own error (a repository's domain error) instead of PostgresNIO's
    /// `PostgresTransactionError` wrapper, so that callers can catch what the closure threw.
    public func transaction<Result>(
        logger: Logger,
        isolation: isolated (any Actor)? = #isolation,
        _ closure: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        do {
            return try await withTransaction(logger: logger, isolation: isolation, closure)
        } catch let error as PostgresTransactionError {
            if let inner = error.closureError { throw inner }
            throw error
        }
    }
}
