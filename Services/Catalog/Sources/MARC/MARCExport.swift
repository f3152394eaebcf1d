import Foundation
import Logging
import NIOCore

/// A MARC export written in pieces as the books are read, in either format: `GET /admin/marc` sends the pieces to the
/// client, `MARCExportRunner` into the file it keeps.
struct MARCExport: Sendable {
    enum Format: String, Sendable {
        case marcxml, iso2709

        var contentType: String { self == .marcxml ? "application/marcxml+xml; charset=utf-8" : "application/marc" }
        var fileExtension: String { self == .marcxml ? "xml" : "mrc" }
    }

    let books: MARCExportPostgresRepository
    let publicURL: String

    /// Writes the export in pieces of about 64 KB; `progress` hears the count of records written after each piece.
    /// Returns how many records it wrote.
    @discardableResult
    func write(
        _ format: Format,
        since: Date?,
        logger: Logger,
        progress: (Int) async throws -> Void = { _ in },
        _ piece: (ByteBuffer) async throws -> Void
    ) async throws -> Int {
        var buffer = ByteBuffer()
        if format == .marcxml { buffer.writeString(MARCRecord.xmlStart) }
        var count = 0
        try await books.each(since: since, logger: logger) { book, status in
            let record = MARCCataloguing.record(for: book, status: status, publicURL: publicURL)
            switch format {
            case .marcxml: buffer.writeString(record.xml)
            case .iso2709: buffer.writeBytes(record.iso2709)
            }
            count += 1
            if buffer.readableBytes >= 64 << 10 {
                try await piece(buffer)
                buffer.clear()
                try await progress(count)
            }
        }
        if format == .marcxml { buffer.writeString(MARCRecord.xmlEnd) }
        try await piece(buffer)
        try await progress(count)
        return count
    }

    /// The file's name: the collection, or its changes since a day.
    static func fileName(_ format: Format, since: Date?) -> String {
        "bookmobile-" + (since.map { "changes-since-" + MARCCataloguing.day($0) } ?? "collection") + "." + format.fileExtension
    }
}
