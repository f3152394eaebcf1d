import Foundation
import Shared

/// A patron's relation to one book as `GET /me/books/{id}` and "My books" show it.
struct BookStatus: Codable, Sendable, Equatable {
    var bookId: UUID
    var state: BookState
    var allowedEvents: [String]
    var dueAt: Date?
    var holdPosition: Int?
    /// While the hold is suspended: no offer reaches it before this date; it keeps its place meanwhile.
    var suspendedUntil: Date?
    var estimatedWait: String?
    var estimatedWaitSeconds: Int?
    var offerExpiresAt: Date?
    var title: String?
    var authors: [String]?
    /// The cover and its thumbnail (at most 200 px high) at catalog; absent for a book without a cover.
    var coverUrl: String?
    var thumbnailUrl: String?
}

extension BookStatus: JSONWritable {
    /// As `WireFormat.encode` writes it (`BookStatusWritingTests`): every circulation answer and "My books" carry it.
    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("allowedEvents")
        json.strings(allowedEvents)
        json.field("authors", authors)
        json.key("bookId")
        json.uuid(bookId)
        json.field("coverUrl", coverUrl)
        json.field("dueAt", dueAt)
        json.field("estimatedWait", estimatedWait)
        json.field("estimatedWaitSeconds", estimatedWaitSeconds)
        json.field("holdPosition", holdPosition)
        json.field("offerExpiresAt", offerExpiresAt)
        json.key("state")
        json.string(state.rawValue)
        json.field("suspendedUntil", suspendedUntil)
        json.field("thumbnailUrl", thumbnailUrl)
        json.field("title", title)
        json.endObject()
    }
}

/// `{"books": [...]}`, the answer of `GET /me/books`.
struct BookStatusList: Encodable, JSONWritable {
    var books: [BookStatus]

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("books")
        json.array(books)
        json.endObject()
    }
}
