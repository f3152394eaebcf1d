/// A function the services' SQL calls, with the triggers that call it, written as `CREATE OR REPLACE` statements: each
/// defined in one place, in its current version, and applied after the migrations whenever its text changed
/// (`applySchema`). A change of its arguments or result type needs a migration that drops the old one first (PostgreSQL
/// cannot replace those in place); a function no longer called is dropped by a migration.
public struct DatabaseFunction: Sendable {
    public let name: String
    public let sql: String

    public init(name: String, sql: String) {
        self.name = name
        self.sql = sql
    }
}
