import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// Catalog's copy of each patron's shelf, as patron publishes it: what personalises a feed page. Read from memory
/// while this replica hears every new version (`ShelfCopyMemory`), else with one row.
struct ShelfCopyPostgresRepository: Sendable {
    let client: PostgresClient
    let memory: ShelfCopyMemory

    /// The channel on which every stored copy is announced as `<patron id>:<version>`.
    static let channel = "shelf_copies"

    init(client: PostgresClient, memory: ShelfCopyMemory = ShelfCopyMemory()) {
        self.client = client
        self.memory = memory
    }

    /// Keeps `copy` unless a newer version is stored already (copies may arrive out of order), and announces it to
    /// every replica.
    func store(_ copy: ShelfCopy, patronID: UUID, logger: Logger) async throws {
        let json = String(decoding: try WireFormat.encode(copy.shelf), as: UTF8.self)
        let rows = try await client.run(StoreCopy.self, patronID, copy.version, json, Self.channel, logger: logger)
        var stored = false
        for try await _ in rows { stored = true }
        if stored {
            memory.announced(copy.version, for: patronID)
            memory.keep(copy, for: patronID)
        }
    }

    /// $1 patron, $2 version, $3 the shelf as JSON text, $4 the channel; prepared (`PreparedSQL`): every change of a
    /// patron's shelf brings one.
    enum StoreCopy: PreparedSQL {
        static let sql = """
            WITH stored AS (
                INSERT INTO patron_shelves AS s (patron_id, version, shelf) VALUES ($1::uuid, $2::int8, $3::text::jsonb)
                ON CONFLICT (patron_id) DO UPDATE SET version = EXCLUDED.version, shelf = EXCLUDED.shelf, updated_at = now()
                WHERE s.version < EXCLUDED.version
                RETURNING patron_id, version)
            SELECT pg_notify($4::text, patron_id::text || ':' || version) FROM stored
            """
    }

    /// Forgets the shelf of a patron whose account was deleted.
    func erase(patronID: UUID, logger: Logger) async throws {
        try await client.query("DELETE FROM patron_shelves WHERE patron_id = \(patronID)", logger: logger)
    }

    /// The patron's shelf and its version; an empty shelf at version 0 for a patron who never had one. `seen` is
    /// the version the gateway knows the patron has (a copy older than it is not used).
    func shelf(patronID: UUID, seen: Int64? = nil, logger: Logger) async throws -> ShelfCopy {
        let (known, trusted) = memory.lookup(patronID, atLeast: seen)
        if let known, trusted { return known }
        var copy = ShelfCopy(version: 0, shelf: PatronShelf(books: [], ignored: [], waitingForAction: 0))
        for try await (version, json) in try await client.execute(
            ShelfStatement(patronID: patronID, knownVersion: known?.version ?? -1),
            logger: logger
        ) {
            if let known, known.version == version {
                copy = known
            } else {
                copy = ShelfCopy(version: version, shelf: try WireFormat.decoder().decode(PatronShelf.self, from: Data((json ?? "").utf8)))
            }
        }
        memory.keep(copy, for: patronID)
        return copy
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
