import Foundation

/// One patron's relation to one book as catalog needs it to personalise an entry.
public struct PatronBookView: Codable, Sendable, Equatable {
    public var bookId: UUID
    public var state: BookState
    public var holdPosition: Int?
    public var dueAt: Date?
    public var offerExpiresAt: Date?
    public var since: Date?
    /// A suspended hold's date: no offer reaches it before.
    public var suspendedUntil: Date?

    public init(
        bookId: UUID,
        state: BookState,
        holdPosition: Int? = nil,
        dueAt: Date? = nil,
        offerExpiresAt: Date? = nil,
        since: Date? = nil,
        suspendedUntil: Date? = nil
    ) {
        self.bookId = bookId
        self.state = state
        self.holdPosition = holdPosition
        self.dueAt = dueAt
        self.offerExpiresAt = offerExpiresAt
        self.since = since
        self.suspendedUntil = suspendedUntil
    }
}
