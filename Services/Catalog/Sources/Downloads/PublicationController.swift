import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceSupport
import Shared

/// The book as a Readium Web Publication: `GET /books/{id}/manifest.json` (metadata, reading order, resources, table of
/// contents, page list, landmarks) and every resource it lists, served from inside the EPUB at
/// `/books/{id}/publication/{path in the archive}` to the same patrons that may download the book.
struct PublicationController: Sendable {
    let books: BookPostgresRepository
    let blobs: any BlobStore
    let access: BookAccess
    let publicURL: String
    let directories = ArchiveDirectories()

    /// Entries declared larger than this are inflated as they are sent (`EntryChunks`), not held whole.
    static let streamedAbove = 1 << 20

    func add(to router: Router<CatalogRequestContext>) {
        router.get(.manifest(.key), use: manifest)
        router.get(.publication(.key, resource: .key), use: resource)
    }

    /// A Readium Web Publication Manifest of the book. Hrefs are absolute, under `/publication/`.
    func manifest(request: Request, context: CatalogRequestContext) async throws -> Response {
        let book = try await books.available(id: try context.uuid("id"), logger: context.logger)
        let data = JSONWriter.bytes(of: ReadiumManifest(book, publicURL: publicURL))
        return Response(
            status: .ok,
            headers: [.contentType: book.format.manifestType, .cacheControl: "public, max-age=300"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }

    /// One resource of the manifest, read from the stored EPUB (obfuscated fonts as the font itself). Files the
    /// package does not list are not served.
    func resource(request: Request, context: CatalogRequestContext) async throws -> Response {
        let book = try await books.available(id: try context.uuid("id"), logger: context.logger)
        let segments = context.parameters.getCatchAll().map { String($0).removingPercentEncoding ?? String($0) }
        let path = segments.joined(separator: "/")
        if book.format == .pdf { return try await pdf(book, path: path, request: request, context: context) }
        guard let resource = (book.navigation?.resources ?? []).first(where: { $0.href == path }) else {
            throw Problem.notFound("This book has no resource '\(path.prefix(200))'")
        }
        _ = try await access.check(book, request: request, context: context)
        let url = try await blobs.served(book.epubSha256, logger: context.logger)
        let limits = book.format == .audiobook ? UploadKind.audioLimits : SafeArchive.Limits()
        let directory = try await directories.directory(sha256: book.epubSha256, at: url, limits: limits)
        guard let entry = directory.entries[path] else {
            throw Problem.notFound("The resource '\(path.prefix(200))' is listed by the book but missing from its file")
        }
        let etag = "\"\(book.epubSha256.prefix(32))-\(String(entry.checksum, radix: 16))\""
        if request.headers.ifNoneMatch(matches: etag) { return Response(status: .notModified, headers: [.eTag: etag]) }
        var headers: HTTPFields = [
            .contentType: ContentSecurity.servedType(resource.type), .eTag: etag, .cacheControl: BookAccess.cacheControl(book),
        ]
        ContentSecurity.add(ContentSecurity.publicationPolicy, to: &headers)
        let declared = Int(entry.uncompressedSize)
        if declared > Self.streamedAbove {
            // Media players seek with ranges.
            let range: Range<Int>
            let status: HTTPResponse.Status
            switch ByteRange.select(request.headers[.range], size: declared, headers: &headers) {
            case .whole: (range, status) = (0..<declared, .ok)
            case .part(let part): (range, status) = (part, .partialContent)
            case .unsatisfiable(let response): return response
            }
            let opened = try await BlockingWork.run { HandedOver(try SafeArchive(url: url, directory: directory, limits: limits)) }
            guard let chunks = opened.value.chunks(of: path, range: range, obfuscation: resource.obfuscation) else {
                throw Problem.notFound("The resource '\(path.prefix(200))' is missing from the book's file")
            }
            let body = ResponseBody(contentLength: range.count) { writer in
                defer { chunks.stop() }
                for try await chunk in chunks.stream {
                    try await writer.write(chunk)
                    chunks.taken()
                }
                try await writer.finish(nil)
            }
            return Response(status: status, headers: headers, body: body)
        }
        // Opening the file and inflating block their thread: not one of Swift's cooperative ones.
        guard let stored = try await BlockingWork.run({ try SafeArchive(url: url, directory: directory, limits: limits).read(path) }) else {
            throw Problem.notFound("The resource '\(path.prefix(200))' is listed by the book but missing from its file")
        }
        let data = resource.obfuscation?.apply(to: stored) ?? stored
        switch ByteRange.select(request.headers[.range], size: data.count, headers: &headers) {
        case .whole: return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
        case .part(let part): return Response(status: .partialContent, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data[part])))
        case .unsatisfiable(let response): return response
        }
    }

    /// A PDF's resources: the stored file itself (`PDFReader.href`), with ranges (PDF readers fetch pages' bytes as
    /// they need them), and its pages drawn as PNG images for the web app's reader (`pages/N.png?width=W`, W from
    /// 200 to 2,000 pixels: the reader's zoom).
    private func pdf(_ book: BookRecord, path: String, request: Request, context: CatalogRequestContext) async throws -> Response {
        let page = Self.pageNumber(path)
        guard path == PDFReader.href || page != nil else { throw Problem.notFound("This book has no resource '\(path.prefix(200))'") }
        _ = try await access.check(book, request: request, context: context)
        let url = try await blobs.served(book.epubSha256, logger: context.logger)
        if let page {
            guard page >= 1, page <= book.pageCount ?? 0 else { throw Problem.notFound("This PDF has no page \(page)") }
            let width = try Self.width(request.uri.queryParameters.get("width"))
            let etag = "\"\(book.epubSha256.prefix(32))-\(page)-\(width)\""
            if request.headers.ifNoneMatch(matches: etag) { return Response(status: .notModified, headers: [.eTag: etag]) }
            let image = try await BlockingWork.run {
                try PDFReader.render(url, page: page, longerSide: width, format: "png", in: FileManager.default.temporaryDirectory)
            }
            var headers: HTTPFields = [.contentType: "image/png", .eTag: etag, .cacheControl: BookAccess.cacheControl(book)]
            ContentSecurity.add(ContentSecurity.filePolicy, to: &headers)
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: image)))
        }
        let etag = "\"\(book.epubSha256)\""
        if request.headers.ifNoneMatch(matches: etag) { return Response(status: .notModified, headers: [.eTag: etag]) }
        var headers: HTTPFields = [.contentType: MediaType.pdf, .eTag: etag, .cacheControl: BookAccess.cacheControl(book)]
        ContentSecurity.add(ContentSecurity.filePolicy, to: &headers)
        let size = book.epubSize
        let range: Range<Int>
        let status: HTTPResponse.Status
        switch ByteRange.select(request.headers[.range], size: size, headers: &headers) {
        case .whole: (range, status) = (0..<size, .ok)
        case .part(let part): (range, status) = (part, .partialContent)
        case .unsatisfiable(let response): return response
        }
        headers[.contentLength] = "\(range.count)"
        return Response(status: status, headers: headers, body: try FileRangeBody.make(url, range: range))
    }

    /// N of `pages/N.png`.
    static func pageNumber(_ path: String) -> Int? {
        guard path.hasPrefix("pages/"), path.hasSuffix(".png") else { return nil }
        let digits = path.dropFirst("pages/".count).dropLast(".png".count)
        guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
        return Int(digits)
    }

    static func width(_ value: String?) throws -> Int {
        guard let value else { return 1_000 }
        guard let width = Int(value), (200...2_000).contains(width) else { throw Problem.badRequest("width must be from 200 to 2000") }
        return width
    }
}
