import Foundation
import Testing

@testable import GatewayService

/// Which spellings of a path the gateway serves, and how routes match them.
@Suite struct PathShapeTests {
    @Test func pathsAsTheServicesWriteThemAreServed() {
        for path in [
            "/", "/me/events", "/me/annotations/", "/books/7/publication/", "/books/7/publication/OEBPS/ch%201.xhtml", "/opds/authors/Jane%20Austen",
            "/admin/",
        ] {
            #expect(PathShape.isServed(path), "\(path)")
        }
    }

    @Test func emptyAndDotSegmentsAndEncodedUnreservedCharactersAreNot() {
        for path in [
            "/me//events", "//me/events", "/me/./events", "/me/x/../events", "/me/events/.", "/me/%65vents", "/me/events%2E", "/me/%7Eevents",
            "me/events", "",
        ] {
            #expect(!PathShape.isServed(path), "\(path)")
        }
    }

    @Test func routesMatchAPathWithoutItsTrailingSlash() {
        #expect(PathShape.matchable("/me/events/") == "/me/events")
        #expect(PathShape.matchable("/me/events") == "/me/events")
        #expect(PathShape.matchable("/") == "/")
    }
}
