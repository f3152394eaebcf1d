import Foundation
import Shared
import Testing

@testable import CatalogService

/// The first page of `/opds/shelf` carries every loan and hold (reading apps sync from it); saved books are paged.
@Suite struct ShelfPageTests {
    static func books(_ states: [BookState]) -> [PatronBookView] { states.map { PatronBookView(bookId: UUID(), state: $0) } }

    @Test func loansAndHoldsAreAllOnTheFirstPageAndSavedBooksArePaged() {
        let shelf = Self.books([.saved, .opened, .saved, .waitingForLoan, .saved, .loanOffered, .saved, .saved])
        let saved = shelf.filter { $0.state == .saved }
        let first = ShelfPage(shelf, page: 1, size: 2)
        #expect(first.books.map(\.state) == [.opened, .waitingForLoan, .loanOffered, .saved, .saved])
        #expect(first.books.suffix(2) == saved.prefix(2), "saved books in the shelf's order")
        #expect(first.hasNext)
        #expect(ShelfPage(shelf, page: 2, size: 2) == ShelfPage(books: Array(saved[2..<4]), hasNext: true))
        #expect(ShelfPage(shelf, page: 3, size: 2) == ShelfPage(books: [saved[4]], hasNext: false))
        #expect(ShelfPage(shelf, page: 9, size: 2) == ShelfPage(books: [], hasNext: false))
    }

    @Test func aShelfOfLoansOnlyIsOnePage() {
        let shelf = Self.books(Array(repeating: .opened, count: 30))
        #expect(ShelfPage(shelf, page: 1, size: 2) == ShelfPage(books: shelf, hasNext: false))
    }
}
