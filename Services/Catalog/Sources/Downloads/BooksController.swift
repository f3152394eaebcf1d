import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ServiceSupport
import Shared

/// `/books/{id}/toc`, `/books/{id}/cover` and `/books/{id}/fulfill`.
struct BooksController: Sendable {
    let books: BookPostgresRepository
    let blobs: any BlobStore
    let access: BookAccess

    func add(to router: Router<CatalogRequestContext>) {
        router.get(.tableOfContents(.key), use: toc)
        router.get(.cover(.key), use: cover)
        router.get(.fulfill(.key), use: fulfill)
    }

    func toc(request: Request, context: CatalogRequestContext) async throws -> Response {
        try JSONMessages.response(
            try await books.available(id: try context.uuid("id"), logger: context.logger).navigation?.toc ?? [],
            headers: [.cacheControl: "public, max-age=3600"]
        )
    }

    /// The cover image, or with `?size=thumbnail` its thumbnail (at most 200 px high; the cover itself when none could be made).
    func cover(request: Request, context: CatalogRequestContext) async throws -> Response {
        let id = try context.uuid("id")
        let thumbnail = request.uri.queryParameters.get("size") == "thumbnail"
        // A cover stored before covers had to be raster images (an SVG) is never served.
        guard let image = try await books.coverImage(of: id, thumbnail: thumbnail, logger: context.logger), let type = image.type,
            RasterImage.types.contains(type)
        else {
            throw Problem.notFound("No cover for book \(id)")
        }
        if request.headers.ifNoneMatch(matches: "\"\(image.hash)\"") { return Response(status: .notModified, headers: [.eTag: "\"\(image.hash)\""]) }
        let url = try await blobs.served(image.hash, logger: context.logger)
        // A cover is read whole (up to 16 MB): off Swift's cooperative threads, as hashing is.
        let data = try await BlockingWork.run { try Data(contentsOf: url) }
        var headers: HTTPFields = [.contentType: type, .eTag: "\"\(image.hash)\"", .cacheControl: "public, max-age=86400"]
        ContentSecurity.add(ContentSecurity.filePolicy, to: &headers)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The book's file (EPUB, PDF or audiobook package): open-access books for anyone, others for a patron with an active loan (the download reported to
    /// patron, `DownloadReport`); with `BLOB_REDIRECT=presigned`, a 307 to a presigned URL of the object instead. Supports one `Range`; a range that reaches the end completes a download. A request
    /// whose `If-None-Match` names the file gets 304 once allowed, and completes the download too (the gateway sends
    /// the copy it holds).
    func fulfill(request: Request, context: CatalogRequestContext) async throws -> Response {
        let book = try await books.available(id: try context.uuid("id"), logger: context.logger)
        var report: DownloadReport?
        if let (patronID, state) = try await access.check(book, request: request, context: context), DownloadReport.reportedFrom.contains(state) {
            report = DownloadReport(patron: access.patron, patronID: patronID, bookID: book.id, logger: context.logger)
            if state != .downloading { await report?.send(.downloadStarted) }
        }
        if let location = blobs.redirect(for: book.epubSha256) {
            // `BLOB_REDIRECT=presigned`: the bytes go from object storage to the client, which catalog cannot watch;
            // the download counts as done once handed over.
            await report?.send(.downloadCompleted)
            return Response(status: .temporaryRedirect, headers: [.location: location, .cacheControl: "private, no-store"])
        }
        let url = try await blobs.served(book.epubSha256, logger: context.logger)
        let size = book.epubSize
        var headers: HTTPFields = [
            .contentType: book.format.fileType, .eTag: "\"\(book.epubSha256)\"",
            .contentDisposition: "attachment; filename=\"\(Self.fileName(book.title)).\(book.format.fileExtension)\"",
            .cacheControl: BookAccess.cacheControl(book),
        ]
        ContentSecurity.add(ContentSecurity.filePolicy, to: &headers)
        let range: Range<Int>
        let status: HTTPResponse.Status
        switch ByteRange.select(request.headers[.range], size: size, headers: &headers) {
        case .whole: (range, status) = (0..<size, .ok)
        case .part(let part): (range, status) = (part, .partialContent)
        case .unsatisfiable(let response): return response
        }
        if status == .ok, let etag = headers[.eTag], request.headers.ifNoneMatch(matches: etag) {
            // The caller holds these bytes (the gateway's copy of the file, `HeldFiles`) and sends them itself: the
            // download is as good as done.
            if let report {
                await report.send(.downloadCompleted)
            }
            headers[.contentLength] = nil
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = "\(range.count)"
        let reachesEnd = range.upperBound == size
        let body = try FileRangeBody.make(
            url,
            range: range,
            completed: { [report] in if reachesEnd { await report?.send(.downloadCompleted) } },
            // Sending broke off, often because the client went away, which cancels this task: report from a task of its own.
            broken: { [report] in if let report { Task { await report.send(.downloadFailed) } } }
        )
        return Response(status: status, headers: headers, body: body)
    }

    static func fileName(_ title: String) -> String {
        let cleaned = title.filter { $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" }.prefix(80)
        return cleaned.isEmpty ? "book" : String(cleaned)
    }
}
