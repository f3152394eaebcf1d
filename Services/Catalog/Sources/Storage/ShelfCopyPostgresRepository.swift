import Foundation
import Logging
import PostgresNIO
import ServiceSupport
import Shared

/// Catalog's copy of each patron's shelf, as patron publishes it: what personalises a feed page, read with one row.
struct ShelfCopyPostgresRepository: Sendable {
    let client: PostgresClient
    /// Copies already decoded, by patron: a page reads the version and gets the shelf's JSON only when it changed.
    let decoded = ExpiringAnswers<UUID, ShelfCopy>(lifetime: 300, limit: 50_000)

    /// Keeps `copy` unless a newer version is stored already (copies may arrive out of order).
    func store(_ copy: ShelfCopy, patronID: UUID, logger: Logger) async throws {
        let json = String(decoding: try WireFormat.encode(copy.shelf), as: UTF8.self)
        try await client.query(
            """
            INSERT INTO patron_shelves AS s (patron_id, version, shelf) VALUES (\(patronID), \(copy.version), \(json)::jsonb)
            ON CONFLICT (patron_id) DO UPDATE SET version = EXCLUDED.version, shelf = EXCLUDED.shelf, updated_at = now()
            WHERE s.version < EXCLUDED.version
            """, logger: logger)
    }

    /// The patron's shelf and its version; an empty shelf at version 0 for a patron who never had one.
    func shelf(patronID: UUID, logger: Logger) async throws -> ShelfCopy {
        let known = decoded[patronID]
        for try await (version, json) in try await client.execute(ShelfStatement(patronID: patronID, knownVersion: known?.version ?? -1), logger: logger) {
            if let known, known.version == version { return known }
            let copy = ShelfCopy(version: version, shelf: try WireFormat.decoder().decode(PatronShelf.self, from: Data((json ?? "").utf8)))
            decoded.remember(copy, for: patronID)
            return copy
        }
        return ShelfCopy(version: 0, shelf: PatronShelf(books: [], ignored: [], waitingForAction: 0))
    }

    /// Prepared once per connection: a signed-in page runs it every time, and PostgreSQL then skips planning it.
    struct ShelfStatement: PostgresPreparedStatement {
        static let sql = "SELECT version, CASE WHEN version = $2 THEN NULL ELSE shelf::text END FROM patron_shelves WHERE patron_id = $1"
        typealias Row = (Int64, String?)

        var patronID: UUID
        var knownVersion: Int64

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(patronID)
            bindings.append(knownVersion)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }
}
