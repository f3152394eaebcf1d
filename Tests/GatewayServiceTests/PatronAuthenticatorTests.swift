import Foundation
import Logging
import ServiceSupport
import Synchronization
import Testing

@testable import GatewayService

/// The gateway keeps a verified access token's claims (verifying each request's token queued them all behind the key
/// collection's actor), but never past the token's own expiry, and never for a token it could not verify.
@Suite struct PatronAuthenticatorTests {
    @Test func aKeptTokenStopsAtItsExpiryAndABadOneIsNeverKept() async throws {
        let keys = await AccessTokenKeys(secret: "test-jwt-secret-0123456789abcdef0123456789")
        // No patron to ask: the session check accepts a validly signed token, so only the token itself decides.
        // The kept token's expiry is compared with this clock, moved on below; the signature is checked by the real one.
        let clock = ManualClock()
        let authenticator = PatronAuthenticator(
            keys: keys,
            patron: InternalClient(baseURLs: ["http://127.0.0.1:9"], token: ServiceToken("t"), timeout: .seconds(1)),
            cacheFor: 60,
            sessionCheckFor: 60,
            now: { clock.time.withLock { $0 } }
        )
        let patron = UUID()
        let token = try await keys.sign(AccessTokenPayload(patronID: patron, sessionID: UUID(), issuedAt: Date(), lifetime: 600))
        let logger = Logger(label: "test")
        for _ in 0..<2 {
            guard case .patron(let id) = await authenticator.authenticate(authorization: "Bearer \(token)", clientAddress: nil, logger: logger) else {
                Issue.record("a valid token was refused")
                return
            }
            #expect(id == patron)
        }
        clock.time.withLock { $0 = $0.addingTimeInterval(601) }
        guard case .refused = await authenticator.authenticate(authorization: "Bearer \(token)", clientAddress: nil, logger: logger) else {
            Issue.record("an expired token was accepted from what the gateway kept")
            return
        }
        let forged = String(token.dropLast(2)) + (token.hasSuffix("AA") ? "BB" : "AA")
        for _ in 0..<2 {
            guard case .refused = await authenticator.authenticate(authorization: "Bearer \(forged)", clientAddress: nil, logger: logger) else {
                Issue.record("a token with a wrong signature was accepted")
                return
            }
        }
    }
}

/// A time that moves only when a test moves it.
final class ManualClock: Sendable {
    let time = Mutex(Date())
}
