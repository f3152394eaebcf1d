import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ServiceSupport
import Shared

/// `/books/{id}/toc`, `/books/{id}/cover`, `/books/{id}/fulfill` and `/books/{id}/manifest.json`.
struct BooksController: Sendable {
    let books: BookPostgresRepository
    let blobs: any BlobStore
    let patron: InternalClient
    let token: ServiceToken
    let publicURL: String

    func add(to router: Router<BasicRequestContext>) {
        router.get("/books/:id/toc", use: toc)
        router.get("/books/:id/cover", use: cover)
        router.get("/books/:id/fulfill", use: fulfill)
        router.get("/books/:id/manifest.json", use: manifest)
    }

    private func book(_ context: BasicRequestContext) async throws -> BookDetail {
        let id = try context.uuid("id")
        guard let book = try await books.detail(id: id, logger: context.logger), !book.withdrawn else { throw Problem.notFound("No book \(id)") }
        return book
    }

    func toc(request: Request, context: BasicRequestContext) async throws -> Response {
        try JSONMessages.response(try await book(context).toc ?? [], headers: [.cacheControl: "public, max-age=3600"])
    }

    /// The cover image, or with `?size=thumbnail` its thumbnail (at most 200 px high; the cover itself when none could be made).
    func cover(request: Request, context: BasicRequestContext) async throws -> Response {
        let id = try context.uuid("id")
        let thumbnail = request.uri.queryParameters.get("size") == "thumbnail"
        let rows = try await books.client.query(
            """
            SELECT cover_sha256, cover_type, thumbnail_sha256, thumbnail_type FROM books
            WHERE id = \(id) AND withdrawn_at IS NULL AND cover_sha256 IS NOT NULL
            """, logger: context.logger)
        var image: (hash: String, type: String?)?
        for try await (coverHash, coverType, thumbnailHash, thumbnailType) in rows.decode((String, String?, String?, String?).self) {
            if thumbnail, let thumbnailHash { image = (thumbnailHash, thumbnailType) } else { image = (coverHash, coverType) }
        }
        guard let image else { throw Problem.notFound("No cover for book \(id)") }
        if request.headers[.ifNoneMatch] == "\"\(image.hash)\"" { return Response(status: .notModified, headers: [.eTag: "\"\(image.hash)\""]) }
        let data = try Data(contentsOf: blobs.url(for: image.hash))
        return Response(
            status: .ok, headers: [.contentType: image.type ?? "image/jpeg", .eTag: "\"\(image.hash)\"", .cacheControl: "public, max-age=86400"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The EPUB: open-access books for anyone, others for a patron with an active loan. Supports one `Range`.
    func fulfill(request: Request, context: BasicRequestContext) async throws -> Response {
        let book = try await book(context)
        if !book.openAccess {
            guard let patronID = Caller(request: request, token: token).patronID else {
                throw Problem.unauthorized("Sign in and borrow this book to download it")
            }
            let check = try await patron.get("/internal/patrons/\(patronID.uuidString.lowercased())/loans/\(book.id.uuidString.lowercased())",
                as: LoanCheck.self, logger: context.logger)
            guard check.active else { throw Problem.forbidden("You have no active loan of this book (its state is '\(check.state.rawValue)')") }
            if check.state == .notDownloaded || check.state == .downloadQueued || check.state == .downloadFailed {
                _ = try? await patron.send(
                    .POST, "/internal/patrons/\(patronID.uuidString.lowercased())/books/\(book.id.uuidString.lowercased())/events",
                    body: ReportedEvent(event: .downloadStarted), as: BookStatusEcho.self, logger: context.logger)
            }
        }
        let url = blobs.url(for: book.epubSha256)
        let size = book.epubSize
        var headers: HTTPFields = [
            .contentType: "application/epub+zip", .acceptRanges: "bytes", .eTag: "\"\(book.epubSha256)\"",
            .contentDisposition: "attachment; filename=\"\(Self.fileName(book.title)).epub\"",
            .cacheControl: book.openAccess ? "public, max-age=86400" : "private, no-store",
        ]
        var range = 0..<size
        var status = HTTPResponse.Status.ok
        if let header = request.headers[.range] {
            guard let requested = Self.parseRange(header, size: size) else {
                headers[.contentRange] = "bytes */\(size)"
                return Problem(status: 416, slug: "range-not-satisfiable", title: "Range not satisfiable").response(headers: headers)
            }
            range = requested
            status = .partialContent
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)"
        }
        headers[.contentLength] = "\(range.count)"
        let handle = try FileHandle(forReadingFrom: url)
        try handle.seek(toOffset: UInt64(range.lowerBound))
        let length = range.count
        let stream = AsyncStream<ByteBuffer> { continuation in
            var remaining = length
            while remaining > 0, let chunk = try? handle.read(upToCount: min(remaining, 256 << 10)), !chunk.isEmpty {
                remaining -= chunk.count
                continuation.yield(ByteBuffer(bytes: chunk))
            }
            try? handle.close()
            continuation.finish()
        }
        return Response(status: status, headers: headers, body: ResponseBody(asyncSequence: stream))
    }

    /// `bytes=a-b`, `bytes=a-` or `bytes=-n` within `size`.
    static func parseRange(_ header: String, size: Int) -> Range<Int>? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let parts = header.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[0].isEmpty {
            guard let suffix = Int(parts[1]), suffix > 0 else { return nil }
            return max(0, size - suffix)..<size
        }
        guard let start = Int(parts[0]), start < size else { return nil }
        let end = parts[1].isEmpty ? size - 1 : min(Int(parts[1]) ?? -1, size - 1)
        guard end >= start else { return nil }
        return start..<(end + 1)
    }

    static func fileName(_ title: String) -> String {
        let cleaned = title.filter { $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" }.prefix(80)
        return cleaned.isEmpty ? "book" : String(cleaned)
    }

    /// A Readium Web Publication Manifest of the book.
    func manifest(request: Request, context: BasicRequestContext) async throws -> Response {
        let book = try await book(context)
        let base = "\(publicURL)/books/\(book.id.uuidString.lowercased())"
        var metadata: [String: Any] = ["title": book.title, "identifier": "urn:uuid:\(book.id.uuidString.lowercased())", "@type": "http://schema.org/Book"]
        if !book.authors.isEmpty { metadata["author"] = book.authors }
        if let language = book.languages.first { metadata["language"] = language }
        if let publisher = book.publisher { metadata["publisher"] = publisher }
        if let description = book.description { metadata["description"] = description }
        let readingOrder = (book.readingOrder ?? []).map { ["href": $0.href, "type": $0.type] }
        func tocLinks(_ entries: [TOCEntry]) -> [[String: Any]] {
            entries.filter { !$0.href.isEmpty }.map { entry in
                var link: [String: Any] = ["href": entry.href, "title": entry.title]
                if !entry.children.isEmpty { link["children"] = tocLinks(entry.children) }
                return link
            }
        }
        let document: [String: Any] = [
            "@context": "https://readium.org/webpub-manifest/context.jsonld", "metadata": metadata,
            "links": [["rel": "self", "href": base + "/manifest.json", "type": "application/webpub+json"]],
            "readingOrder": readingOrder.isEmpty ? [["href": "fulfill", "type": "application/epub+zip"]] : readingOrder,
            "toc": tocLinks(book.toc ?? []),
        ]
        let data = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
        return Response(status: .ok, headers: [.contentType: "application/webpub+json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// Any JSON answer whose content is not needed.
struct BookStatusEcho: Decodable {}
