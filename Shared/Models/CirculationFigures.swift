import Foundation

/// Circulation figures of one book, sent by patron to catalog through the outbox
/// (`PUT /internal/books/{id}/figures`). `version` grows with every change; catalog ignores older versions.
public struct CirculationFigures: Codable, Sendable, Equatable {
    public var bookId: UUID
    public var copiesTotal: Int
    public var copiesAvailable: Int
    public var holds: Int
    public var checkouts: Int
    public var ratingAverage: Double?
    public var ratingCount: Int
    public var version: Int64

    public init(
        bookId: UUID,
        copiesTotal: Int,
        copiesAvailable: Int,
        holds: Int,
        checkouts: Int,
        ratingAverage: Double?,
        ratingCount: Int,
        version: Int64
    ) {
        self.bookId = bookId
        self.copiesTotal = copiesTotal
        self.copiesAvailable = copiesAvailable
        self.holds = holds
        self.checkouts = checkouts
        self.ratingAverage = ratingAverage
        self.ratingCount = ratingCount
        self.version = version
    }
}
