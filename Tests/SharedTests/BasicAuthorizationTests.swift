import Foundation
import Testing

@testable import ServiceSupport

/// Reading the `Authorization` header: Bearer tokens and Basic credentials, the scheme in any case.
@Suite struct BasicAuthorizationTests {
    @Test func aBearerTokenIsReadInAnyCaseOfTheScheme() {
        #expect(BasicAuthorization.bearer("Bearer abc.def") == "abc.def")
        #expect(BasicAuthorization.bearer("bearer  abc.def \t") == "abc.def")
        #expect(BasicAuthorization.bearer("BEARER abc") == "abc")
        for header in [nil, "", "Bearer", "Bearer ", "Bearer   ", "Bearerabc", "Basic abc", "Bear abc", "Bearér abc", "Xearer abc"] {
            #expect(BasicAuthorization.bearer(header) == nil, "\(header ?? "nil")")
        }
    }

    @Test func basicCredentialsAreReadAndMalformedOnesRefused() {
        let encoded = Data("ann:pin 1:2 é".utf8).base64EncodedString()
        let credentials = BasicAuthorization(header: "Basic \(encoded)")
        #expect(credentials?.login == "ann" && credentials?.secret == "pin 1:2 é")
        #expect(BasicAuthorization(header: "basic   \(encoded)  ")?.login == "ann")
        let noLogin = Data(":pin".utf8).base64EncodedString()
        let noColon = Data("ann".utf8).base64EncodedString()
        for header in [
            nil, "Basic", "Basic !!!", "Basic \(noLogin)", "Basic \(noColon)", "Bearer \(encoded)", "Basic " + String(repeating: "A", count: 5000),
        ] {
            #expect(BasicAuthorization(header: header) == nil, "\(header?.prefix(20) ?? "nil")")
        }
    }
}
