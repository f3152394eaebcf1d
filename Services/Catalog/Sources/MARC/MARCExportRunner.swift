import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import ServiceSupport

/// Builds the MARC export files staff asked for (`MARCExportJobPostgresRepository`), one at a time per replica: the
/// records written to a temporary file with the count reported as it goes, then the file kept as a blob.
struct MARCExportRunner: Service {
    let jobs: MARCExportJobPostgresRepository
    let export: MARCExport
    let blobs: any BlobStore
    let interval: TimeInterval
    let schema: SchemaReadiness
    let logger: Logger

    func run() async throws {
        try await PeriodicJob.run(every: interval, after: schema, logger: logger, failure: "MARC export failed", deadline: 6 * 3_600) {
            while let claimed = try await jobs.claim(logger: logger) {
                do {
                    try await build(claimed.id, format: claimed.format, since: claimed.since)
                } catch {
                    logger.warning("MARC export failed", metadata: ["export.id": "\(claimed.id)", "error": "\(String(reflecting: error))"])
                    try? await jobs.fail(claimed.id, error: "\(error)", logger: logger)
                }
            }
        }
    }

    func build(_ id: UUID, format: MARCExport.Format, since: Date?) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("marc-export-\(id.uuidString.lowercased()).\(format.fileExtension)")
        defer { try? FileManager.default.removeItem(at: file) }
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        let handle = try FileHandle(forWritingTo: file)
        var lastReport = ContinuousClock.now
        let records: Int
        do {
            records = try await export.write(
                format,
                since: since,
                logger: logger,
                progress: { count in
                    // Once a second at most: progress is also the heartbeat.
                    guard ContinuousClock.now - lastReport > .seconds(1) else { return }
                    lastReport = .now
                    try await jobs.progress(id, records: count, logger: logger)
                },
                { piece in try handle.write(contentsOf: Data(buffer: piece)) }
            )
            try handle.close()
        } catch {
            try? handle.close()
            throw error
        }
        let size = Int64((try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0)
        let sha = try await NIOThreadPool.singleton.runIfActive { try BlobHash.of(file: file) }
        let blobs = self.blobs
        try await jobs.finish(id, records: records, size: size, sha: sha, logger: logger) { _ = try await blobs.put(file: file) }
        logger.info("MARC export kept", metadata: ["export.id": "\(id)", "records": "\(records)", "bytes": "\(size)"])
    }
}
