import Foundation
import ServiceSupport
import Shared

/// Where a book's cover came from: its own file (`epub`: the EPUB's cover, an audiobook's picture, a PDF's first page), drawn by `GeneratedCover` because the EPUB had none, or sent by an
/// operator (`PUT /admin/books/{id}/cover`). A generated cover gives way to any other; an uploaded one is kept when a
/// new edition without a cover is ingested.
enum CoverSource: String, Sendable, Codable {
    case epub, generated, uploaded
}
