import Foundation
import Logging
import PostgresNIO
import PostgresSupport

/// The MARC export files staff asked for (migration 37): queued, claimed by one replica (heartbeat: a run whose replica
/// died is taken up again), their progress, and the blob each became.
struct MARCExportJobPostgresRepository: Sendable {
    let client: PostgresClient

    static let abandonedAfter: TimeInterval = 120

    struct Job: Encodable, Sendable {
        let id: UUID
        let format: String
        let since: Date?
        let status: String
        let records: Int
        let total: Int
        let size: Int64?
        let error: String?
        let createdBy: String
        let createdAt: Date
        let finishedAt: Date?
        /// Set once the file is kept (`GET /admin/marc/exports/{id}/file`).
        var fileUrl: String?
    }

    private static let columns = "id, format, since, status, records, total, size, error, created_by, created_at, finished_at, blob_sha256"
    private typealias Row = (UUID, String, Date?, String, Int, Int, Int64?, String?, String, Date, Date?, String?)

    private static func job(_ r: Row) -> (Job, String?) {
        (
            Job(
                id: r.0,
                format: r.1,
                since: r.2,
                status: r.3,
                records: r.4,
                total: r.5,
                size: r.6,
                error: r.7,
                createdBy: r.8,
                createdAt: r.9,
                finishedAt: r.10
            ), r.11
        )
    }

    func create(format: MARCExport.Format, since: Date?, total: Int, staff: String, logger: Logger) async throws -> UUID {
        let id = UUID()
        try await client.query(
            "INSERT INTO marc_exports (id, format, since, total, created_by) VALUES (\(id), \(format.rawValue), \(since), \(total), \(staff))",
            logger: logger
        )
        return id
    }

    /// The latest 50 exports, newest first.
    func recent(logger: Logger) async throws -> [Job] {
        let rows = try await client.query("SELECT \(unescaped: Self.columns) FROM marc_exports ORDER BY created_at DESC, id LIMIT 50", logger: logger)
        var jobs: [Job] = []
        for try await row in rows.decode(Row.self) { jobs.append(Self.job(row).0) }
        return jobs
    }

    /// One export and its file's blob (nil until it is kept).
    func find(_ id: UUID, logger: Logger) async throws -> (job: Job, blob: String?)? {
        let rows = try await client.query("SELECT \(unescaped: Self.columns) FROM marc_exports WHERE id = \(id)", logger: logger)
        for try await row in rows.decode(Row.self) { return Self.job(row) }
        return nil
    }

    /// Takes the oldest waiting export (or an abandoned one) for this replica.
    func claim(logger: Logger) async throws -> (id: UUID, format: MARCExport.Format, since: Date?)? {
        let rows = try await client.query(
            """
            UPDATE marc_exports SET status = 'running', started_at = now(), heartbeat_at = now(), records = 0
            WHERE id = (SELECT id FROM marc_exports
                WHERE status = 'waiting' OR (status = 'running' AND heartbeat_at < now() - make_interval(secs => \(Self.abandonedAfter)))
                ORDER BY created_at FOR UPDATE SKIP LOCKED LIMIT 1)
            RETURNING id, format, since
            """,
            logger: logger
        )
        for try await (id, format, since) in rows.decode((UUID, String, Date?).self) {
            guard let format = MARCExport.Format(rawValue: format) else { continue }
            return (id, format, since)
        }
        return nil
    }

    func progress(_ id: UUID, records: Int, logger: Logger) async throws {
        try await client.query("UPDATE marc_exports SET records = \(records), heartbeat_at = now() WHERE id = \(id)", logger: logger)
    }

    /// Stores the file whose hash is `sha` (`store`, run under the blob's shared lock, so that the orphan sweep cannot
    /// take it before the row names it) and marks the export done.
    func finish(_ id: UUID, records: Int, size: Int64, sha: String, logger: Logger, store: @Sendable () async throws -> Void) async throws {
        try await client.transaction(logger: logger) { connection in
            try await BlobReferencePostgresRepository.lockShared([sha], on: connection, logger: logger)
            try await store()
            try await connection.query(
                """
                UPDATE marc_exports SET status = 'done', records = \(records), blob_sha256 = \(sha), size = \(size), finished_at = now()
                WHERE id = \(id)
                """,
                logger: logger
            )
        }
    }

    func fail(_ id: UUID, error: String, logger: Logger) async throws {
        try await client.query(
            "UPDATE marc_exports SET status = 'failed', error = \(error), finished_at = now() WHERE id = \(id)",
            logger: logger
        )
    }
}
