import PostgresNIO

extension PSQLError {
    /// The SQLSTATE of a server error, if the server sent one.
    public var sqlState: String? { serverInfo?[.sqlState] }
    /// `23505`: a unique constraint refused the row.
    public var isUniqueViolation: Bool { sqlState == "23505" }
    /// `23503`: a foreign key refused the row.
    public var isForeignKeyViolation: Bool { sqlState == "23503" }
    /// `23514`: a check constraint refused the row.
    public var isCheckViolation: Bool { sqlState == "23514" }
    /// `40001` / `40P01`: serialization failure or deadlock; the transaction may be retried.
    public var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }
}
