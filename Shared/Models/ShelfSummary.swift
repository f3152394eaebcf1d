import Foundation

/// What the gateway needs of a patron's shelf to answer their feed pages from the shared pages it holds: the books
/// they see differently (on the shelf or ignored) and the shelf's version (catalog's `GET /internal/shelves/{patron}`).
public struct ShelfSummary: Codable, Sendable, Equatable {
    public var version: Int64
    public var touched: [UUID]

    public init(version: Int64, touched: [UUID]) {
        self.version = version
        self.touched = touched
    }
}
