import Foundation
import Hummingbird
import Logging
import ServiceSupport
import Shared

/// `GET /admin/marc?format=marcxml|iso2709[&since=]` (admin tokens): MARC 21 records of the collection, or of what
/// changed since a date or time (new and changed records, withdrawn books as deleted records), written while the books
/// are read, for the library's catalogue (ILS) to load.
struct MARCController: Sendable {
    let books: MARCExportPostgresRepository
    let publicURL: String

    func add(to admin: some RouterMethods<CatalogRequestContext>) {
        admin.get(.marcExport, use: export)
    }

    enum Format: String {
        case marcxml, iso2709
    }

    func export(request: Request, context: CatalogRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        guard let format = Format(rawValue: query.get("format") ?? "marcxml") else {
            throw Problem.badRequest("format must be marcxml or iso2709")
        }
        let since: Date? = try query.get("since").map { text in
            guard let date = WireFormat.parseDate(text) ?? WireFormat.parseDate(text + "T00:00:00Z") else {
                throw Problem.badRequest("since must be a date (YYYY-MM-DD) or an RFC 3339 time")
            }
            return date
        }
        let (books, publicURL, logger) = (self.books, self.publicURL, context.logger)
        let name = "bookmobile-" + (since.map { "changes-since-" + WireFormat.formatDate($0).prefix(10) } ?? "collection")
        return Response(
            status: .ok,
            headers: [
                .contentType: format == .marcxml ? "application/marcxml+xml; charset=utf-8" : "application/marc",
                .contentDisposition: "attachment; filename=\"\(name).\(format == .marcxml ? "xml" : "mrc")\"",
                .cacheControl: "no-store",
            ],
            body: ResponseBody { writer in
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
                        try await writer.write(buffer)
                        buffer.clear()
                    }
                }
                if format == .marcxml { buffer.writeString(MARCRecord.xmlEnd) }
                try await writer.write(buffer)
                try await writer.finish(nil)
                logger.info("MARC export written", metadata: ["records": "\(count)", "format": "\(format.rawValue)"])
            }
        )
    }
}
