import Foundation
import Logging
import ServiceLifecycle
import ServiceSupport

/// Runs the OPDS imports staff ask for, one at a time per replica, each claimed by one replica
/// (`OPDSCollectionPostgresRepository.claim`); looks for one every `interval`. A run under way at graceful shutdown
/// finishes first; one whose process died is taken up again by a replica once its heartbeat is old.
struct OPDSImportRunner: Service {
    let collections: OPDSCollectionPostgresRepository
    let importer: OPDSImporter
    let interval: TimeInterval
    let schema: SchemaReadiness
    let logger: Logger

    func run() async throws {
        try await PeriodicJob.run(every: interval, after: schema, logger: logger, failure: "OPDS import failed", deadline: 6 * 3_600) {
            while let claimed = try await collections.claim(logger: logger) {
                logger.info("OPDS import started", metadata: ["collection.id": "\(claimed.id)"])
                do {
                    try await importer.run(claimed, logger: logger)
                } catch {
                    try? await collections.finish(claimed.id, failed: true, withdrawn: 0, errors: ["\(error)"], logger: logger)
                    throw error
                }
            }
        }
    }
}
