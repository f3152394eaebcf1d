import Foundation

/// Answer of patron's `GET /internal/books/{id}/co-borrowed`: books that at least three of the book's borrowers also
/// borrowed, most shared first (ids only: nobody's history is revealed).
public struct CoBorrowedBooks: Codable, Sendable, Equatable {
    public var books: [UUID]

    public init(books: [UUID]) { self.books = books }
}
