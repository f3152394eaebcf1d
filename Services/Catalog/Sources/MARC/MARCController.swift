import Foundation
import Hummingbird
import Logging
import ServiceSupport
import Shared

/// MARC 21 records for the library's catalogue (ILS), behind admin tokens: `GET /admin/marc?format=marcxml|iso2709
/// [&since=]` writes the current export while the books are read (the collection, or what changed since a date or time:
/// new and changed records, withdrawn books as deleted records); `POST /admin/marc/exports` asks for the same as a file
/// kept for download, built in the background with its progress (`GET /admin/marc/exports`, then
/// `GET /admin/marc/exports/{id}/file`).
struct MARCController: Sendable {
    let export: MARCExport
    let jobs: MARCExportJobPostgresRepository
    let blobs: any BlobStore

    func add(to admin: RouterGroup<CatalogRequestContext>) {
        admin.get(.marcExport, use: current)
        admin.get(.marcExports) { _, context in
            try JSONMessages.response(["exports": try await jobs.recent(logger: context.logger).map(withFile)], headers: [.cacheControl: "no-store"])
        }
        admin.post(.marcExports, use: create)
        admin.get(.marcExportFile(.key), use: file)
    }

    func withFile(_ job: MARCExportJobPostgresRepository.Job) -> MARCExportJobPostgresRepository.Job {
        var job = job
        if job.status == "done" { job.fileUrl = PublicRoute.marcExportFile(.value(job.id)).path }
        return job
    }

    static func format(_ text: String?) throws -> MARCExport.Format {
        guard let format = MARCExport.Format(rawValue: text ?? "marcxml") else { throw Problem.badRequest("format must be marcxml or iso2709") }
        return format
    }

    static func since(_ text: String?) throws -> Date? {
        try text.map { text in
            guard let date = WireFormat.parseDate(text) ?? WireFormat.parseDate(text + "T00:00:00Z") else {
                throw Problem.badRequest("since must be a date (YYYY-MM-DD) or an RFC 3339 time")
            }
            return date
        }
    }

    func current(request: Request, context: CatalogRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let (format, since) = (try Self.format(query.get("format")), try Self.since(query.get("since")))
        let (export, logger) = (self.export, context.logger)
        return Response(
            status: .ok,
            headers: [
                .contentType: format.contentType,
                .contentDisposition: "attachment; filename=\"\(MARCExport.fileName(format, since: since))\"",
                .cacheControl: "no-store",
            ],
            body: ResponseBody { writer in
                let count = try await export.write(format, since: since, logger: logger) { try await writer.write($0) }
                try await writer.finish(nil)
                logger.info("MARC export written", metadata: ["records": "\(count)", "format": "\(format.rawValue)"])
            }
        )
    }

    struct NewExport: Decodable {
        var format: String?
        var since: String?
    }

    /// `POST /admin/marc/exports` `{"format", "since"?}` → 202 with the export, waiting.
    func create(request: Request, context: CatalogRequestContext) async throws -> Response {
        let body = try await JSONMessages.decode(NewExport.self, from: request)
        let (format, since) = (try Self.format(body.format), try Self.since(body.since))
        let total = try await export.books.count(since: since, logger: context.logger)
        let id = try await jobs.create(format: format, since: since, total: total, staff: AdminCaller.name ?? "admin", logger: context.logger)
        guard let (job, _) = try await jobs.find(id, logger: context.logger) else { throw Problem.notFound("No export \(id)") }
        return try JSONMessages.response(withFile(job), status: .accepted, headers: [.cacheControl: "no-store"])
    }

    func file(request: Request, context: CatalogRequestContext) async throws -> Response {
        let id = try context.uuid("id")
        guard let (job, blob) = try await jobs.find(id, logger: context.logger) else { throw Problem.notFound("No export \(id)") }
        guard let blob, let format = MARCExport.Format(rawValue: job.format) else {
            throw Problem.conflict("export-not-ready", "The export is \(job.status); its file is not kept yet")
        }
        let url = try await blobs.served(blob, logger: context.logger)
        let handle = try FileHandle(forReadingFrom: url)
        let size = Int(job.size ?? 0)
        return Response(
            status: .ok,
            headers: [
                .contentType: format.contentType, .contentLength: "\(size)", .cacheControl: "no-store",
                .contentDisposition: "attachment; filename=\"\(MARCExport.fileName(format, since: job.since))\"",
            ],
            body: ResponseBody(contentLength: size) { writer in
                defer { try? handle.close() }
                var offset = 0
                while offset < size {
                    let chunk = try await FileChunk.read(handle.fileDescriptor, at: offset, upTo: min(size - offset, FileChunk.size))
                    guard chunk.readableBytes > 0 else { break }
                    offset += chunk.readableBytes
                    try await writer.write(chunk)
                }
                try await writer.finish(nil)
            }
        )
    }
}
