import Foundation
import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import ServiceSupport
import Shared

/// `/admin/books`: ingest, inspect, change and withdraw books. Needs `Authorization: Bearer <ADMIN_TOKEN>`.
struct AdminController: Sendable {
    let ingester: Ingester
    let maxIngestBytes: Int
    /// Cleared after every change, so that an operator sees the change in the feeds at once.
    let feedCache: ResponseCache

    /// Registers the routes on `admin`, a group behind `AdminTokenMiddleware`.
    func add(to admin: RouterGroup<CatalogRequestContext>) {
        admin.post(.adminBooks, use: ingest)
        admin.get(.adminBooks, use: list)
        admin.get(.catalogFigures, use: figures)
        admin.get(.adminBook(.key), use: get)
        admin.patch(.adminBook(.key), use: edit)
        admin.delete(.adminBook(.key), use: withdraw)
        admin.put(.adminCover(.key), use: replaceCover)
    }

    /// `POST /admin/books?copies=N&open_access=&featured=&replace=` with an EPUB body → 201 new, 200 known file or new
    /// edition (only with `replace=true`; otherwise a file with an existing book's ISBN is a 409 naming that book).
    func ingest(request: Request, context: CatalogRequestContext) async throws -> Response {
        var options = Ingester.Options()
        let query = request.uri.queryParameters
        if let copies = query.get("copies") {
            guard let value = Int(copies), (0...100_000).contains(value) else {
                throw Problem.badRequest("copies must be a whole number from 0 to 100000")
            }
            options.copies = value
        }
        options.openAccess = try flag(query.get("open_access"), name: "open_access")
        options.featured = try flag(query.get("featured"), name: "featured")
        options.replace = try flag(query.get("replace"), name: "replace")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ingest-\(UUID().uuidString).epub")
        defer { try? FileManager.default.removeItem(at: file) }
        guard FileManager.default.createFile(atPath: file.path, contents: nil), let handle = try? FileHandle(forWritingTo: file) else {
            throw Problem(status: 507, slug: "no-space", title: "Insufficient storage")
        }
        var size = 0
        do {
            for try await chunk in request.body {
                size += chunk.readableBytes
                guard size <= maxIngestBytes else { throw EPUBError.tooLarge(maxIngestBytes) }
                try handle.write(contentsOf: Data(buffer: chunk))
            }
            try handle.close()
        } catch {
            try? handle.close()
            throw error
        }
        guard size > 0 else { throw EPUBError.notAZip }
        let result = try await ingester.ingest(file: file, options: options, logger: context.logger)
        feedCache.clear()
        return try JSONMessages.response(IngestResponse(result), status: result.outcome == .created ? .created : .ok)
    }

    private func flag(_ value: String?, name: String) throws -> Bool {
        switch value {
        case nil, "false", "0": return false
        case "true", "1": return true
        default: throw Problem.badRequest("\(name) must be true or false")
        }
    }

    /// `GET /admin/books?q=&size=&after=` → `{"books": [...], "next"?: id}`: every book, withdrawn ones too, newest
    /// first, whose title or an author contains `q`.
    func list(request: Request, context: CatalogRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let words = String(query.get("q") ?? "").trimmingCharacters(in: .whitespaces)
        guard words.count <= 200 else { throw Problem.badRequest("q is at most 200 characters") }
        guard let size = Int(query.get("size") ?? "50"), (1...100).contains(size) else { throw Problem.badRequest("size must be from 1 to 100") }
        var after: UUID?
        if let value = query.get("after") {
            guard let id = UUID(uuidString: String(value)) else { throw Problem.badRequest("after must be a book id") }
            after = id
        }
        let books = try await ingester.books.adminList(words: words, after: after, size: size, logger: context.logger)
        struct Page: Encodable {
            var books: [BookRecord]
            var next: UUID?
        }
        return try JSONMessages.response(Page(books: books, next: books.count == size ? books.last?.id : nil), headers: [.cacheControl: "no-store"])
    }

    /// `GET /admin/figures` → the catalog's counts for the console's dashboard.
    func figures(request: Request, context: CatalogRequestContext) async throws -> Response {
        try JSONMessages.response(try await ingester.books.figures(logger: context.logger), headers: [.cacheControl: "no-store"])
    }

    func get(request: Request, context: CatalogRequestContext) async throws -> Response {
        let id = try context.uuid("id")
        guard let book = try await ingester.books.detail(id: id, logger: context.logger) else { throw Problem.notFound("No book \(id)") }
        return try JSONMessages.response(book)
    }

    struct Edit: Decodable {
        var copies: Int?
        var featured: Bool?
        var staffPick: Bool?
        var openAccess: Bool?
        var audience: BookAudience?

        enum CodingKeys: String, CodingKey, CaseIterable { case copies, featured, staffPick, openAccess, audience }

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(Set(CodingKeys.allCases.map(\.rawValue)))
            let container = try decoder.container(keyedBy: CodingKeys.self)
            copies = try container.decodeIfPresent(Int.self, forKey: .copies)
            featured = try container.decodeIfPresent(Bool.self, forKey: .featured)
            staffPick = try container.decodeIfPresent(Bool.self, forKey: .staffPick)
            openAccess = try container.decodeIfPresent(Bool.self, forKey: .openAccess)
            if let value = try container.decodeIfPresent(String.self, forKey: .audience) {
                guard let audience = BookAudience(rawValue: value) else {
                    throw Problem.badRequest("audience must be one of \(BookAudience.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                self.audience = audience
            }
        }
    }

    /// `PATCH /admin/books/{id}` `{copies?, featured?, staffPick?, openAccess?, audience?}` → the book; the licence goes to patron.
    func edit(request: Request, context: CatalogRequestContext) async throws -> Response {
        let id = try context.uuid("id")
        let edit = try await JSONMessages.decode(Edit.self, from: request)
        if let copies = edit.copies, !(0...100_000).contains(copies) { throw Problem.badRequest("copies must be from 0 to 100000") }
        guard
            try await ingester.books.edit(
                id: id,
                copies: edit.copies,
                featured: edit.featured,
                staffPick: edit.staffPick,
                openAccess: edit.openAccess,
                audience: edit.audience,
                logger: context.logger
            )
        else { throw Problem.notFound("No book \(id)") }
        feedCache.clear()
        return try await get(request: request, context: context)
    }

    /// `DELETE /admin/books/{id}` → 204: the book leaves every feed; loans in progress end at their due date.
    func withdraw(request: Request, context: CatalogRequestContext) async throws -> Response {
        let id = try context.uuid("id")
        guard try await ingester.books.withdraw(id: id, logger: context.logger) else { throw Problem.notFound("No book \(id)") }
        feedCache.clear()
        return Response(status: .noContent)
    }
}

extension AdminController {
    /// `PUT /admin/books/{id}/cover` with a JPEG, PNG, GIF or WebP body → the book: the image replaces the cover and
    /// its thumbnail (a generated one, or the EPUB's own). 415 for another type, 422 for an image libvips cannot use,
    /// 413 over 16 MB, 404 for an unknown book; nothing changes on a refusal.
    func replaceCover(request: Request, context: CatalogRequestContext) async throws -> Response {
        let id = try context.uuid("id")
        let data = try await JSONMessages.body(of: request, limit: CoverImages.maxUploadBytes)
        let book = try await ingester.replaceCover(of: id, with: data, logger: context.logger)
        feedCache.clear()
        return try JSONMessages.response(book)
    }
}
