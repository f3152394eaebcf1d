import Foundation
import Hummingbird
import ServiceSupport
import Shared

/// `/me/sync-keys`: the patron's KOReader sync keys. `POST` `{"device", "secret"}` makes one, with the patron's
/// current PIN or password (a key outlives the session, so a stolen token alone cannot make one; 403 when wrong), and
/// answers its user name and key once (201); `GET` lists them without keys; `DELETE /me/sync-keys/{id}` revokes one.
/// Every key ends with a credential reset (a new secret, sessions revoked, staff's reset). A patron who signs in
/// through the library's identity provider has no PIN: their keys are made through it (`SingleSignOnController`), and
/// `POST` tells them so (403 `sync-key-through-single-sign-on`).
struct SyncKeyController: Sendable {
    let keys: SyncKeyPostgresRepository
    let accounts: AccountPostgresRepository
    let currentSecret: CurrentSecretCheck
    let limit: Int

    /// Keys one patron may hold: enough for every device a household has.
    static let keysPerPatron = 20

    /// A device's name as its key keeps it: trimmed, 1 to 100 characters (400 otherwise).
    static func deviceName(_ asked: String) throws -> String {
        let device = asked.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...100).contains(device.count) else { throw Problem.badRequest("device must be 1 to 100 characters, such as \"Kobo Clara\"") }
        return device
    }

    /// The refusal of a key past `limit`.
    static func limitReached(_ limit: Int) -> Problem {
        Problem(
            status: 409,
            slug: "sync-key-limit",
            title: "Conflict",
            detail: "At most \(limit) sync keys; revoke one you no longer use",
            limit: limit
        )
    }

    func add(to me: some RouterMethods<SignedInRequestContext>) {
        me.post(.syncKeys, use: create)
        me.get(.syncKeys, use: list)
        me.delete(.syncKey(.key), use: revoke)
    }

    struct NewKeyRequest: Decodable {
        var device: String
        /// The patron's current PIN or password (none for a patron of the identity provider, who is told where to go).
        var secret: String?
    }

    struct KeyList: Encodable {
        var syncKeys: [SyncKey]
    }

    func create(request: Request, context: SignedInRequestContext) async throws -> Response {
        let asked = try await JSONMessages.decode(NewKeyRequest.self, from: request)
        let device = try Self.deviceName(asked.device)
        if try await accounts.signInMethod(patronID: context.patronID, logger: context.logger) == "oidc" {
            throw Problem(
                status: 403,
                slug: "sync-key-through-single-sign-on",
                title: "Forbidden",
                detail: "You sign in through the library's sign-in service: make the key there (GET /auth/oidc/authorize?purpose=sync-key&device=…)"
            )
        }
        guard let secret = asked.secret else { throw Problem.badRequest("secret (your current PIN or password) is missing") }
        _ = try await currentSecret.verify(secret, patronID: context.patronID, request: request, logger: context.logger)
        guard let key = try await keys.create(patronID: context.patronID, device: device, limit: limit, logger: context.logger) else {
            throw Self.limitReached(limit)
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
