import Foundation

/// What the gateway needs of a patron's shelf to answer their feed pages from the shared pages it holds: the books
/// they see differently (on the shelf or ignored) and the shelf's version (catalog's `GET /internal/shelves/{patron}`).
public struct ShelfSummary: Codable, Sendable, Equatable {
    public var version: Int64
    /// A set, read once when the summary arrives: every signed-in page the gateway answers checks its books against it.
    public var touched: Set<UUID>

    public init(version: Int64, touched: Set<UUID>) {
        self.version = version
        self.touched = touched
    }
}
