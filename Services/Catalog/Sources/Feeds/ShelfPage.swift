import Shared

/// Which of a patron's books a page of `/opds/shelf` shows. Reading apps sync loans and holds from the first page
/// only (Palace/SimplyE take a book missing from it as returned), so that page carries every book the patron
/// borrows or waits for (at most `LOAN_LIMIT` + `HOLD_LIMIT`); saved books, which can be many more, follow
/// `size` a page in the shelf's order (newest change first).
struct ShelfPage: Equatable {
    var books: [PatronBookView]
    var hasNext: Bool

    init(books: [PatronBookView], hasNext: Bool) {
        self.books = books
        self.hasNext = hasNext
    }

    init(_ shelf: [PatronBookView], page: Int, size: Int) {
        let saved = shelf.filter { $0.state == .saved }
        let start = min((page - 1) * size, saved.count)
        let end = min(start + size, saved.count)
        books = (page == 1 ? shelf.filter { $0.state != .saved } : []) + saved[start..<end]
        hasNext = end < saved.count
    }
}
