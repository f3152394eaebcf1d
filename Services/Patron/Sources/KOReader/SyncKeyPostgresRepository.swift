import Foundation
import Logging
import NIOCore
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// Patrons' KOReader sync keys in PostgreSQL.
struct SyncKeyPostgresRepository: Sendable {
    let client: PostgresClient

    /// Makes a key for `device` unless the patron has `limit` already (nil then); a user name drawn twice is drawn
    /// again.
    func create(patronID: UUID, device: String, limit: Int, logger: Logger) async throws -> NewSyncKey? {
        let key = SyncKeySecret.random(SyncKeySecret.keyLength)
        let hash = ByteBuffer(bytes: SyncKeySecret.hash(sentKey: SyncKeySecret.sent(key)))
        for _ in 0..<5 {
            let id = UUID.timeOrdered()
            let username = SyncKeySecret.random(SyncKeySecret.usernameLength)
            do {
                let rows = try await client.transaction(logger: logger) { connection in
                    // The patron's row, locked: two requests at once cannot both pass the limit.
                    try await connection.query("SELECT 1 FROM patrons WHERE id = \(patronID) FOR UPDATE", logger: logger)
                    let inserted = try await connection.query(
                        """
                        INSERT INTO sync_keys (id, patron_id, username, key_hash, device)
                        SELECT \(id), \(patronID), \(username), \(hash), \(device)
                        WHERE (SELECT count(*) FROM sync_keys WHERE patron_id = \(patronID)) < \(limit)
                        RETURNING created_at
                        """,
                        logger: logger
                    )
                    var created: [Date] = []
                    for try await date in inserted.decode(Date.self) { created.append(date) }
                    return created
                }
                guard let created = rows.first else { return nil }
                return NewSyncKey(id: id, username: username, key: key, device: device, createdAt: created)
            } catch let error as PSQLError where error.isUniqueViolation {
                continue
            }
        }
        throw Problem.conflict("sync-key-race", "No free user name was drawn; try again")
    }

    /// The patron's keys, oldest first, without their secrets.
    func keys(patronID: UUID, logger: Logger) async throws -> [SyncKey] {
        let rows = try await client.query(
            "SELECT id, username, device, created_at, last_used_at FROM sync_keys WHERE patron_id = \(patronID) ORDER BY created_at, id",
            logger: logger
        )
        var keys: [SyncKey] = []
        for try await (id, username, device, created, used) in rows.decode((UUID, String, String, Date, Date?).self) {
            keys.append(SyncKey(id: id, username: username, device: device, createdAt: created, lastUsedAt: used))
        }
        return keys
    }

    /// Revokes one of the patron's keys; false for an unknown id or another patron's.
    func revoke(_ id: UUID, patronID: UUID, logger: Logger) async throws -> Bool {
        let rows = try await client.query("DELETE FROM sync_keys WHERE id = \(id) AND patron_id = \(patronID) RETURNING 1", logger: logger)
        for try await _ in rows { return true }
        return false
    }

    /// Revokes every key of the patron, inside the transaction that resets their credentials.
    static func revokeAll(patronID: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM sync_keys WHERE patron_id = \(patronID)", logger: logger)
    }

    /// The patron whose key `username` is, when `sentKey` (KOReader's MD5 of the key) is that key's; notes the use
    /// at most once an hour (what the account page shows).
    func patron(username: String, sentKey: String, logger: Logger) async throws -> UUID? {
        let hash = ByteBuffer(bytes: SyncKeySecret.hash(sentKey: sentKey))
        let rows = try await client.query(
            """
            SELECT id, patron_id, last_used_at IS NULL OR last_used_at < now() - interval '1 hour'
            FROM sync_keys WHERE username = \(username.lowercased()) AND key_hash = \(hash)
            """,
            logger: logger
        )
        for try await (id, patronID, noteUse) in rows.decode((UUID, UUID, Bool).self) {
            if noteUse { try await client.query("UPDATE sync_keys SET last_used_at = now() WHERE id = \(id)", logger: logger) }
            return patronID
        }
        return nil
    }

    /// Whether some key has this user name (KOReader's registration answers "already registered" for it).
    func exists(username: String, logger: Logger) async throws -> Bool {
        for try await _ in try await client.query("SELECT 1 FROM sync_keys WHERE username = \(username.lowercased())", logger: logger) {
            return true
        }
        return false
    }
}
