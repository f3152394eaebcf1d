import Foundation

/// Everything catalog needs to personalise a page for one patron, fetched once per page
/// (`GET /internal/patrons/{id}/shelf`): the books not in state NONE, the ignored books and the count of items
/// waiting for action.
public struct PatronShelf: Codable, Sendable, Equatable {
    public var books: [PatronBookView]
    public var ignored: [UUID]
    public var waitingForAction: Int

    public init(books: [PatronBookView], ignored: [UUID], waitingForAction: Int) {
        self.books = books
        self.ignored = ignored
        self.waitingForAction = waitingForAction
    }
}
