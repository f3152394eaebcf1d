import Foundation

/// Body of catalog's `PUT /internal/shelves/{patron}`: a patron's shelf as patron read it, and the version of that
/// reading (increasing for each patron, so that catalog keeps the newest whatever order copies arrive in).
public struct ShelfCopy: Codable, Sendable, Equatable {
    public var version: Int64
    public var shelf: PatronShelf

    public init(version: Int64, shelf: PatronShelf) {
        self.version = version
        self.shelf = shelf
    }
}
