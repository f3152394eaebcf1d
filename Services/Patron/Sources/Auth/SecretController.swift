import Foundation
import Hummingbird
import Logging
import ServiceSupport
import Shared

/// `PUT /me/password` and `POST /me/sessions/revoke-all`: what a patron does about a leaked PIN or password without
/// deleting the account. The gateway forgets its cached Basic verdicts and session answers for the patron when either
/// succeeds through it, so the old secret and the ended sessions stop working there at once. Either also revokes the
/// patron's KOReader sync keys: a credential reset leaves no way in that the old credentials made.
struct SecretController: Sendable {
    let accounts: AccountPostgresRepository
    let hasher: PasswordHasher
    let currentSecret: CurrentSecretCheck

    func add(to me: some RouterMethods<SignedInRequestContext>) {
        me.put(.password, use: change)
        me.post(.revokeAllSessions, use: revokeAll)
    }

    struct Change: Decodable {
        var current: String
        var new: String

        enum CodingKeys: String, CodingKey, CaseIterable { case current, new }

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(Set(CodingKeys.allCases.map(\.rawValue)))
            let container = try decoder.container(keyedBy: CodingKeys.self)
            current = try container.decode(String.self, forKey: .current)
            new = try container.decode(String.self, forKey: .new)
        }
    }

    /// `PUT /me/password` `{current, new}` → 204; the PIN or password is replaced (a PIN stays 4 to 8 digits, a
    /// password follows sign-up's rules), every other session ends and every sync key is revoked. 403 when `current`
    /// is wrong.
    func change(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let body = try await JSONMessages.decode(Change.self, from: request)
        guard try await accounts.signInMethod(patronID: patronID, logger: context.logger) == "local" else { throw AuthError.secretHeldByILS }
        let stored = try await currentSecret.verify(body.current, patronID: patronID, request: request, logger: context.logger)
        if body.current.allSatisfy(\.isASCIIDigit) && body.current.count <= 8 {
            try Validation.pin(body.new, field: "new")
        } else {
            try Validation.password(body.new)
        }
        let hash = try await hasher.hash(body.new)
        guard try await accounts.changeSecret(patronID: patronID, from: stored, to: hash, keeping: nil, logger: context.logger) else {
            throw Problem.conflict("secret-changed", "The PIN or password was changed meanwhile; sign in again")
        }
        context.logger.info("Secret changed", metadata: ["patron.id": "\(patronID)"])
        return Response(status: .noContent).announcingCredentialsChanged(of: patronID)
    }

    /// `POST /me/sessions/revoke-all` → `{"revoked": N}`: every session (and its tokens) ends, this one included, and
    /// every sync key is revoked.
    func revokeAll(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let count = try await accounts.revokeAllSessions(patronID: patronID, logger: context.logger)
        context.logger.info("Sessions revoked", metadata: ["patron.id": "\(patronID)", "count": "\(count)"])
        return try JSONMessages.response(["revoked": count]).announcingCredentialsChanged(of: patronID)
    }
}
