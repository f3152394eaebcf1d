import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// The result of ingesting one file.
struct IngestResult: Encodable, Sendable {
    enum Outcome: String, Encodable, Sendable {
        /// A new book.
        case created
        /// The same file was ingested before; nothing changed.
        case unchanged
        /// A new file with the ISBN of an existing book replaced that book's file (a new edition), as asked.
        case newEdition = "new_edition"
    }

    var outcome: Outcome
    var book: BookRecord
}
