import Logging
import PostgresNIO

/// A statement PostgreSQL parses and plans once per connection (a named prepared statement) instead of at every run.
/// For the short statements a borrow or a return runs, planning cost more than running them (docs/PERFORMANCE.md,
/// pg_stat_statements). Each parameter carries its type in the text (`$1::uuid`, `$2::int8`, `$3::text[]`): the
/// statement is prepared before any value is seen, and the values are then sent in binary as those types.
public protocol PreparedSQL {
    static var sql: String { get }
}

/// The `PostgresPreparedStatement` of a `PreparedSQL`, named after it; rows come back as they are.
struct PreparedSQLStatement<Statement: PreparedSQL>: PostgresPreparedStatement {
    static var name: String { String(reflecting: Statement.self) }
    static var sql: String { Statement.sql }
    typealias Row = PostgresRow

    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

extension PreparedSQLStatement {
    init(_ values: [(any PostgresThrowingDynamicTypeEncodable)?]) throws {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            if let value { try bindings.append(value) } else { bindings.appendNull() }
        }
        self.bindings = bindings
    }
}

extension PostgresConnection {
    /// Runs `statement` prepared on this connection with `values` as `$1`, `$2`, … (nil as NULL); its rows.
    public func run<Statement: PreparedSQL>(
        _ statement: Statement.Type,
        _ values: (any PostgresThrowingDynamicTypeEncodable)?...,
        logger: Logger
    ) async throws -> some AsyncSequence<PostgresRow, any Error> {
        try await run(statement, values: values, logger: logger)
    }

    /// `run` with the values in an array: for statements that share their parameters.
    public func run<Statement: PreparedSQL>(
        _ statement: Statement.Type,
        values: [(any PostgresThrowingDynamicTypeEncodable)?],
        logger: Logger
    ) async throws -> some AsyncSequence<PostgresRow, any Error> {
        try await execute(try PreparedSQLStatement<Statement>(values), logger: logger)
    }
}

extension PostgresClient {
    /// Runs `statement` prepared on a pooled connection with `values` as `$1`, `$2`, … (nil as NULL); its rows.
    public func run<Statement: PreparedSQL>(
        _ statement: Statement.Type,
        _ values: (any PostgresThrowingDynamicTypeEncodable)?...,
        logger: Logger
    ) async throws -> some AsyncSequence<PostgresRow, any Error> {
        try await run(statement, values: values, logger: logger)
    }

    /// `run` with the values in an array: for a helper that runs statements of several shapes.
    public func run<Statement: PreparedSQL>(
        _ statement: Statement.Type,
        values: [(any PostgresThrowingDynamicTypeEncodable)?],
        logger: Logger
    ) async throws -> some AsyncSequence<PostgresRow, any Error> {
        try await execute(try PreparedSQLStatement<Statement>(values), logger: logger)
    }
}
