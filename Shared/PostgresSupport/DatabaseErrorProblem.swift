import PostgresNIO
import ServiceSupport
import Shared
import _ConnectionPoolModule

/// A database that cannot be reached (down, restarting, the connection closed under the request) answers 503 with
/// `Retry-After`, as the readiness probe does, not 500; any other database error stays a 500 (a fault to look into,
/// logged by `ProblemMiddleware`).
extension PSQLError: ProblemConvertible {
    public var problem: Problem { DatabaseErrorProblem.isUnreachable(self) ? DatabaseErrorProblem.unavailable : Problem.internalError }

    /// The connection is gone or the server is shutting down or starting (SQLSTATE classes 08 and 57P).
    public var isConnectionLost: Bool {
        [.serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown, .poolClosed].contains(code)
            || sqlState.map { $0.hasPrefix("08") || $0.hasPrefix("57P") } == true
    }
}

/// A pool that cannot make a connection (its server is away) or was closed under the request: 503, as a lost
/// connection is.
extension ConnectionPoolError: ProblemConvertible {
    public var problem: Problem { DatabaseErrorProblem.isUnreachable(self) ? DatabaseErrorProblem.unavailable : Problem.internalError }
}

/// A transaction that failed to begin, commit or roll back answers as the error that failed it.
extension PostgresTransactionError: ProblemConvertible {
    public var problem: Problem {
        let cause = [closureError, beginError, commitError, rollbackError].compactMap { $0 }.first
        return (cause as? any ProblemConvertible)?.problem ?? Problem.internalError
    }
}

public enum DatabaseErrorProblem {
    public static let unavailable = Problem(
        status: 503,
        slug: "database-unavailable",
        title: "Service unavailable",
        detail: "The database cannot be reached right now; try again shortly",
        retryAfter: 2
    )

    /// Whether `error` says the database could not be reached (answered with `unavailable`), as opposed to a fault in
    /// the statement or the data: a read that failed so may be asked of another server (`ReadReplicas`).
    public static func isUnreachable(_ error: any Error) -> Bool {
        switch error {
        case let error as PSQLError: error.isConnectionLost
        case let error as ConnectionPoolError: error != .requestCancelled
        default: false
        }
    }
}
