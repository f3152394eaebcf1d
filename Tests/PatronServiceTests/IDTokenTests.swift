import Foundation
import JWTKit
import Testing

@testable import PatronService

/// The ID token's checks (OpenID Connect Core 3.1.3.7): a token signed by the provider's key still signs nobody in
/// unless it is the configured issuer's, for this client, for this sign-in (nonce) and current; and only asymmetric
/// algorithms are taken (the provider's keys are public).
@Suite struct IDTokenTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func token(_ change: (inout IDToken) -> Void = { _ in }) -> IDToken {
        var token = IDToken(
            issuer: "https://id.example.org",
            subject: "user-1",
            audience: ["bookmobile"],
            expires: now.addingTimeInterval(300),
            issuedAt: now.addingTimeInterval(-5),
            nonce: "n-1",
            name: "Ann",
            email: "ann@example.org",
            emailVerified: true,
            others: ["patron_type": ["Juvenile"], "groups": ["staff", "teens"]]
        )
        change(&token)
        return token
    }

    func rejection(_ token: IDToken) -> IDToken.Rejection? {
        do {
            try token.check(issuer: "https://id.example.org", clientID: "bookmobile", nonce: "n-1", now: now)
            return nil
        } catch let rejection as IDToken.Rejection {
            return rejection
        } catch {
            return .algorithm("unexpected \(error)")
        }
    }

    @Test func aCurrentTokenForThisClientAndSignInPasses() {
        #expect(rejection(token()) == nil)
        #expect(
            rejection(
                token {
                    $0.audience = ["bookmobile", "other"]
                    $0.authorizedParty = "bookmobile"
                }
            ) == nil
        )
        #expect(rejection(token { $0.expires = now.addingTimeInterval(-30) }) == nil, "a minute's leeway for clocks")
    }

    @Test func eachClaimThatDoesNotHoldRefusesTheToken() {
        #expect(rejection(token { $0.issuer = "https://id.example.org/" }) == .issuer)
        #expect(rejection(token { $0.issuer = "https://evil.example" }) == .issuer)
        #expect(rejection(token { $0.audience = ["another-app"] }) == .audience)
        #expect(rejection(token { $0.audience = ["bookmobile", "other"] }) == .authorizedParty, "several audiences need azp")
        #expect(rejection(token { $0.authorizedParty = "other" }) == .authorizedParty)
        #expect(rejection(token { $0.expires = now.addingTimeInterval(-120) }) == .expired)
        #expect(rejection(token { $0.issuedAt = now.addingTimeInterval(600) }) == .issuedInFuture)
        #expect(rejection(token { $0.nonce = "another sign-in's" }) == .nonce)
        #expect(rejection(token { $0.nonce = nil }) == .nonce)
    }

    @Test func aSignedTokenDecodesToTheSameClaimsAndOnlyAsymmetricAlgorithmsAreTaken() async throws {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: ES256PrivateKey(), kid: "k1")
        let signed = try await keys.sign(token(), kid: "k1")
        try IDToken.checkAlgorithm(of: signed)
        #expect(try await keys.verify(signed, as: IDToken.self) == token())

        func compact(_ header: String) -> String {
            Data(header.utf8).base64URLEncodedString() + "." + signed.split(separator: ".")[1] + "."
        }
        #expect(throws: IDToken.Rejection.algorithm("none")) { try IDToken.checkAlgorithm(of: compact(#"{"alg":"none"}"#)) }
        #expect(throws: IDToken.Rejection.algorithm("HS256")) { try IDToken.checkAlgorithm(of: compact(#"{"alg":"HS256","typ":"JWT"}"#)) }
        #expect(throws: IDToken.Rejection.algorithm("none")) { try IDToken.checkAlgorithm(of: "not a token") }
    }

    @Test func theStrictestTypeAnyClaimValueNamesIsThePatrons() throws {
        let rules = try PatronTypeRules(names: "juvenile=child,young adult=teen", limits: nil, defaultLimits: (5, 5))
        #expect(rules.strictest(named: ["Juvenile"]) == .child)
        #expect(rules.strictest(named: ["staff", "Young Adult"]) == .teen)
        #expect(rules.strictest(named: ["adult", "juvenile", "teen"]) == .child)
        #expect(rules.strictest(named: ["staff"]) == .adult, "names that stand for no type count for nothing")
    }
}
