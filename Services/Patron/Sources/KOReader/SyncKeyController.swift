import Foundation
import Hummingbird
import ServiceSupport
import Shared

/// `/me/sync-keys`: the patron's KOReader sync keys. `POST` `{"device", "secret"}` makes one, with the patron's
/// current PIN or password (a key outlives the session, so a stolen token alone cannot make one; 403 when wrong), and
/// answers its user name and key once (201); `GET` lists them without keys; `DELETE /me/sync-keys/{id}` revokes one.
/// Every key ends with a credential reset (a new secret, sessions revoked, staff's reset).
struct SyncKeyController: Sendable {
    let keys: SyncKeyPostgresRepository
    let currentSecret: CurrentSecretCheck
    /// Keys one patron may hold: enough for every device a household has.
    let limit: Int

    func add(to me: some RouterMethods<SignedInRequestContext>) {
        me.post(.syncKeys, use: create)
        me.get(.syncKeys, use: list)
        me.delete(.syncKey(.key), use: revoke)
    }

    struct NewKeyRequest: Decodable {
        var device: String
        /// The patron's current PIN or password.
        var secret: String
    }

    struct KeyList: Encodable {
        var syncKeys: [SyncKey]
    }

    func create(request: Request, context: SignedInRequestContext) async throws -> Response {
        let asked = try await JSONMessages.decode(NewKeyRequest.self, from: request)
        let device = asked.device.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...100).contains(device.count) else { throw Problem.badRequest("device must be 1 to 100 characters, such as \"Kobo Clara\"") }
        _ = try await currentSecret.verify(asked.secret, patronID: context.patronID, request: request, logger: context.logger)
        guard let key = try await keys.create(patronID: context.patronID, device: device, limit: limit, logger: context.logger) else {
            throw Problem(
                status: 409,
                slug: "sync-key-limit",
                title: "Conflict",
                detail: "At most \(limit) sync keys; revoke one you no longer use",
                limit: limit
            )
        }
        context.logger.info("Sync key made", metadata: ["sync_key.id": "\(key.id)"])
        return try JSONMessages.response(key, status: .created, headers: [.cacheControl: "no-store"])
    }

    func list(request: Request, context: SignedInRequestContext) async throws -> Response {
        try JSONMessages.response(KeyList(syncKeys: try await keys.keys(patronID: context.patronID, logger: context.logger)))
    }

    func revoke(request: Request, context: SignedInRequestContext) async throws -> Response {
        guard try await keys.revoke(try context.uuid("id"), patronID: context.patronID, logger: context.logger) else {
            throw Problem.notFound("No sync key \(try context.uuid("id"))")
        }
        return Response(status: .noContent)
    }
}
