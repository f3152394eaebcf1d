/// One versioned schema change (tables, columns, indexes, extensions): never edited once shipped; a change is a new
/// migration. Functions and triggers are not migrations but `DatabaseFunction`s, defined once and replaced in place.
public struct Migration: Sendable {
    public let version: Int
    public let name: String
    public let sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}
