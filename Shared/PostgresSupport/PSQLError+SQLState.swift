import PostgresNIO

extension PSQLError {
    /// The SQLSTATE of a server error, if the server sent one.
    public var sqlState: String? { serverInfo?[.sqlState] }
    /// `23505`: a unique constraint refused the row.
    public var isUniqueViolation: Bool { sqlState == "23505" }
}
