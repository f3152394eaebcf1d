import Foundation
import Logging
import ServiceSupport
import Shared

/// The shelf that personalises a patron's page: catalog's copy (`ShelfCopyPostgresRepository`), or, when the copy
/// is older than the version the patron's last change was stamped with (`seen`, from the gateway), a reading asked
/// of patron and stored, so that a change shows on the very next page although patron publishes it afterwards.
struct PatronShelves: Sendable {
    let copies: ShelfCopyPostgresRepository
    let patron: InternalClient

    func shelf(patronID: UUID, seen: Int64?, logger: Logger) async throws -> ShelfCopy {
        let copy = try await copies.shelf(patronID: patronID, seen: seen, logger: logger)
        guard let seen, copy.version < seen else { return copy }
        do {
            let fresh = try await patron.get(InternalRoute.patronShelf(patronID).path, as: ShelfCopy.self, logger: logger)
            try await copies.store(fresh, patronID: patronID, logger: logger)
            return fresh
        } catch {
            logger.warning("Shelf not read from patron; the page shows the copy held", metadata: ["error": "\(String(reflecting: error))"])
            return copy
        }
    }
}
