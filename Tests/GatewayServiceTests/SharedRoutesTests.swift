import Foundation
import Shared
import Testing

/// Every route definition with values is a route its service registers (services register them with `.key`), and the
/// gateway's routing table sends each public one to that service. Adding a case to `PublicRoute` means adding it here.
@Suite struct SharedRoutesTests {
    static let book = UUID()
    static let patron = UUID()

    static let publicRoutes: [(PublicRoute, PublicService)] =
        [
            (.catalogRoot, .catalog), (.groups, .catalog), (.lane("new"), .catalog), (.series("Dune%20Chronicles"), .catalog),
            (.author("Frank%20Herbert"), .catalog), (.search, .catalog), (.recommended, .catalog), (.entry(book), .catalog),
            (.related(book), .catalog), (.shelfFeed, .catalog), (.listFeed(book), .catalog), (.publication(book), .catalog),
            (.publication(.value(book), resource: .value("OEBPS/ch%201.xhtml")), .catalog), (.fulfill(book), .catalog),
            (.cover(book), .catalog), (.manifest(book), .catalog), (.tableOfContents(.value(book)), .catalog),
            (.lists(.patron), .catalog), (.list(.patron, .value(book)), .catalog), (.listBooks(.patron, .value(book)), .catalog),
            (.listBook(.patron, .value(book), book: .value(book)), .catalog), (.lists(.staff), .catalog),
            (.list(.staff, .value(book)), .catalog), (.listBooks(.staff, .value(book)), .catalog),
            (.listBook(.staff, .value(book), book: .value(book)), .catalog), (.adminBooks, .catalog), (.adminBook(.value(book)), .catalog),
            (.adminCover(.value(book)), .catalog), (.catalogFigures, .catalog),
            (.authDocument, .patron), (.token, .patron), (.refresh, .patron), (.signup, .patron), (.logout, .patron), (.me, .patron),
            (.settings, .patron), (.notifications, .patron), (.notificationRead(.value(book)), .patron), (.password, .patron),
            (.revokeAllSessions, .patron), (.export, .patron), (.myBooks, .patron), (.myBook(book), .patron), (.ignoredBooks, .patron),
            (.circulationDashboard, .patron), (.position(book), .patron), (.progression(book), .patron), (.bookmarks(.value(book)), .patron),
            (.bookmark(.value(book)), .patron), (.rating(.value(book)), .patron), (.favorite(.value(book)), .patron),
            (.annotations(book), .patron), (.annotations(nil), .patron), (.feedback, .patron), (.feedbackList, .patron),
            (.syncKeys, .patron), (.syncKey(.value(book)), .patron), (.kosyncProgress(.value("0123456789abcdef0123456789abcdef")), .patron),
        ] + PublicRoute.CirculationAction.allCases.map { (.circulation(book, $0), .patron) }
        + PublicRoute.KOSyncAction.allCases.map { (.kosync($0), .patron) }

    static let internalRoutes: [(InternalRoute, PublicService)] = [
        (.bookFigures(book), .catalog), (.figures, .catalog), (.patronErasure(patron), .catalog), (.patronLists(patron), .catalog),
        (.shelfCopy(patron), .catalog), (.readingOrder(book), .catalog), (.license(book), .patron), (.licenses, .patron),
        (.patronShelf(patron), .patron), (.loanCheck(patron: patron, book: book), .patron),
        (.bookEvents(patron: patron, book: book), .patron), (.coBorrowed(book), .patron), (.taste(patron), .patron),
        (.session(UUID()), .patron), (.basicCredentials, .patron), (.secretStamp(patron), .patron),
    ]

    /// Whether `path` (query left out) fits `pattern`, where a `:name` or `{name}` segment fits any one segment and a
    /// trailing `**` any rest (a resource path below the publication folder).
    static func matches(_ path: String, _ pattern: String) -> Bool {
        var segments = path.split(separator: "?").first.map { $0.split(separator: "/") } ?? []
        var expected = pattern.split(separator: "/")
        if expected.last == "**" {
            expected.removeLast()
            guard segments.count >= expected.count else { return false }
            segments = Array(segments.prefix(expected.count))
        }
        guard segments.count == expected.count else { return false }
        return zip(segments, expected).allSatisfy { $1.hasPrefix(":") || $1.hasPrefix("{") || $0 == $1 }
    }

    @Test func everySharedPathIsARouteOfTheServiceItNames() async throws {
        let (catalog, patron) = try await OpenAPICoverageTests.registered()
        func registers(_ service: PublicService, _ path: String) -> Bool {
            (service == .catalog ? catalog : patron).contains { Self.matches(path, $0.1) }
        }
        for (route, service) in Self.publicRoutes {
            #expect(registers(service, route.path), "\(route.path) is not a route of \(service)")
            #expect(PublicService.serving(route.path) == service, "the gateway does not send \(route.path) to \(service)")
        }
        for (route, service) in Self.internalRoutes {
            #expect(registers(service, route.path), "\(route.path) is not a route of \(service)")
        }
    }

    @Test func theGatewaySendsEachPathToItsService() {
        #expect(PublicService.serving("/me/lists/\(Self.book.lowercased)") == .catalog)
        #expect(PublicService.serving("/admin/feedback") == .patron)
        #expect(PublicService.serving("/admin/books") == .catalog)
        #expect(PublicService.serving("/admin") == nil)
        #expect(PublicService.serving("/mexico") == nil)
        #expect(PublicService.serving("/opds") == .catalog)
    }
}
