import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceSupport
import Shared

/// `GET /me/export`: every piece of the patron's data in one JSON document.
struct ExportController: Sendable {
    let profiles: ProfilePostgresRepository
    let circulation: CirculationPostgresRepository
    let bookmarks: BookmarkPostgresRepository
    let positions: PositionPostgresRepository
    let ratings: RatingPostgresRepository
    let feedback: FeedbackPostgresRepository
    let syncKeys: SyncKeyPostgresRepository
    let koreaderDocuments: KOReaderDocumentPostgresRepository
    let suggestions: SuggestionPostgresRepository
    let catalog: InternalClient

    func add(to me: some RouterMethods<SignedInRequestContext>) {
        me.get(.export, use: export)
    }

    /// `GET /me/export` → every piece of the patron's data in one JSON document, written as it is read: the parts
    /// that can grow for years (loan history, bookmarks, positions) a page of rows at a time, feedback and KOReader's
    /// progress row by row as they come.
    func export(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let logger = context.logger
        let bookmarks = self.bookmarks
        let positions = self.positions
        let circulation = self.circulation
        let profile = try await profiles.profile(patronID: patronID, logger: logger)
        let settings = try await profiles.savedSettings(patronID: patronID, logger: logger)
        let rules = circulation.rules
        let books = try await circulation.shelf(patronID: patronID, logger: logger).map { $0.status(rules: rules) }
        let ratings = try await ratings.ratings(patronID: patronID, logger: logger)
        let (feedback, koreaderDocuments) = (self.feedback, self.koreaderDocuments)
        let keys = try await syncKeys.keys(patronID: patronID, logger: logger)
        let suggested = try await suggestions.mine(patronID: patronID, logger: logger)
        // The patron's lists are kept by catalog; when it cannot be asked the export says so rather than omit them.
        let lists = try? await catalog.get(
            InternalRoute.patronLists(patronID).path,
            as: ExportedLists.self,
            logger: logger
        )
        let page = 500
        let body = ResponseBody { writer in
            func write(_ text: String) async throws { try await writer.write(ByteBuffer(string: text)) }
            func write(_ name: String, _ value: some Encodable) async throws {
                try await write("\"\(name)\":" + String(decoding: try WireFormat.encode(value), as: UTF8.self))
            }
            try await write("{")
            try await write("profile", profile)
            try await write(",")
            try await write("settings", settings)
            try await write(",")
            try await write("books", books)
            try await write(",")
            try await write("favorites", profile?.favorites ?? [])
            try await write(",")
            try await write("ratings", Dictionary(uniqueKeysWithValues: ratings.map { ($0.bookID.lowercased, $0.stars) }))
            try await write(",")
            // Written as the rows come, as the other parts that grow are.
            try await write("\"feedback\":[")
            var first = true
            try await feedback.feedback(patronID: patronID, logger: logger) { message in
                try await write((first ? "" : ",") + String(decoding: try WireFormat.encode(message), as: UTF8.self))
                first = false
            }
            try await write("],")
            try await write("syncKeys", keys)
            try await write(",")
            try await write("suggestions", suggested)
            try await write(",\"koreaderProgress\":[")
            first = true
            try await koreaderDocuments.all(patronID: patronID, logger: logger) { document, kept in
                let record = KOSync.ProgressRecord(document: document, kept: kept)
                try await write((first ? "" : ",") + String(decoding: JSONWriter.bytes(of: record, capacity: 256), as: UTF8.self))
                first = false
            }
            try await write("],")
            if let lists {
                try await write("lists", lists.lists)
            } else {
                try await write("lists", "unavailable: the catalog service could not be asked; export again to include your lists")
            }
            try await write(",\"loanHistory\":[")
            var after: Int64 = 0
            var separator = ""
            while true {
                let rows = try await circulation.loanHistory(patronID: patronID, after: after, limit: page, logger: logger)
                for row in rows {
                    try await write(separator + String(decoding: try WireFormat.encode(row.entry), as: UTF8.self))
                    separator = ","
                }
                guard rows.count == page, let last = rows.last else { break }
                after = last.number
            }
            try await write("],\"bookmarks\":[")
            separator = ""
            for start in stride(from: 0, to: Int.max, by: page) {
                let rows = try await bookmarks.bookmarks(patronID: patronID, bookID: nil, range: start..<(start + page), logger: logger)
                for bookmark in rows {
                    try await write(separator + String(decoding: try WireFormat.encode(bookmark), as: UTF8.self))
                    separator = ","
                }
                if rows.count < page { break }
            }
            try await write("],\"positions\":{")
            separator = ""
            for start in stride(from: 0, to: Int.max, by: page) {
                let rows = try await positions.positions(patronID: patronID, bookID: nil, range: start..<(start + page), logger: logger)
                for (bookID, position) in rows {
                    try await write(separator + "\"\(bookID.lowercased)\":" + String(decoding: try WireFormat.encode(position), as: UTF8.self))
                    separator = ","
                }
                if rows.count < page { break }
            }
            try await write("}}")
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: MediaType.json, .contentDisposition: "attachment; filename=\"bookmobile-export.json\"",
                .cacheControl: "private, no-store",
            ],
            body: body
        )
    }
}
