import Foundation
import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import ServiceSupport
import Shared

/// The ingest answer: the book with its warnings and what happened.
struct IngestResponse: Encodable {
    var outcome: String
    var id: UUID
    var title: String
    var authors: [String]
    var warnings: [String]
    var book: BookRecord

    init(_ result: IngestResult) {
        outcome = result.outcome.rawValue
        id = result.book.id
        title = result.book.title
        authors = result.book.authorNames
        warnings = result.book.warnings
        book = result.book
    }
}
