import Foundation
import Shared
import Testing

/// Every route definition with values is a route of the service it names (services register them with `.key`), and the
/// gateway's routing table sends each public one to that service. Every case of `PublicRoute` has an example here.
@Suite struct SharedRoutesTests {
    static let book = UUID()
    static let patron = UUID()

    /// An example of every case of `PublicRoute` (`everyCaseHasAnExample` fails when one is missing).
    static let publicRoutes: [PublicRoute] =
        [
            .catalogRoot, .groups, .lane("new"), .series("Dune%20Chronicles"), .author("Frank%20Herbert"), .search, .recommended, .entry(book),
            .related(book), .shelfFeed, .listFeed(book), .publication(book), .publication(.value(book), resource: .value("OEBPS/ch%201.xhtml")),
            .fulfill(book), .cover(book), .manifest(book), .tableOfContents(.value(book)), .lists(.patron), .list(.patron, .value(book)),
            .listBooks(.patron, .value(book)), .listBook(.patron, .value(book), book: .value(book)), .lists(.staff), .list(.staff, .value(book)),
            .listBooks(.staff, .value(book)), .listBook(.staff, .value(book), book: .value(book)), .adminBooks, .adminBook(.value(book)),
            .adminCover(.value(book)), .catalogFigures, .marcExport, .marcExports, .marcExportFile(.value(book)), .adminLanes,
            .opdsCollections, .opdsCollection(.value(book)), .opdsCollectionRun(.value(book)),
            .authDocument, .token, .refresh, .signup, .logout, .singleSignOn, .singleSignOnReturn, .mySuggestions, .me, .settings,
            .notifications, .notificationRead(.value(book)), .password, .revokeAllSessions, .export, .myBooks, .myBook(book), .ignoredBooks,
            .circulationDashboard, .position(book), .progression(book), .bookmarks(.value(book)), .bookmark(.value(book)),
            .rating(.value(book)), .favorite(.value(book)), .annotations(book), .annotations(nil), .annotation(.value(book)), .feedback,
            .feedbackList, .syncKeys, .syncKey(.value(book)), .kosyncProgress(.value("0123456789abcdef0123456789abcdef")), .mailSettings,
            .mailVerification, .mailVerify, .mailUnsubscribe, .mailQueue, .events, .adminPatrons, .adminPatron(.value(patron)),
            .adminPatronBlock(.value(patron)), .adminPatronSecret(.value(patron)), .adminPatronType(.value(patron)), .adminSuggestions,
            .adminSuggestion(.value(book)), .adminSuggestionMerge(.value(book)), .adminPatronBookEnd(.value(patron), book: .value(book)),
            .staffAudit, .adminAnnouncements, .adminAnnouncement(.value(book)),
        ] + PublicRoute.CirculationAction.allCases.map { .circulation(book, $0) } + PublicRoute.KOSyncAction.allCases.map { .kosync($0) }
        // Every event is in the CSV only.
        + PublicRoute.Report.allCases.flatMap { $0 == .events ? [.reportCSV($0)] : [.report($0), .reportCSV($0)] }

    /// A case's name: its label when it has values, else itself.
    static func caseName(_ route: PublicRoute) -> String {
        Mirror(reflecting: route).children.first?.label ?? String(describing: route)
    }

    @Test func everyCaseHasAnExample() throws {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Shared/Models/PublicRoute.swift")
        let text = try String(contentsOf: source, encoding: .utf8)
        // The route cases are the enum's own (four spaces in), not its nested enums' (eight).
        let declared = Set(
            text.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("    case "), !line.hasPrefix("     ") else { return nil }
                return String(line.dropFirst(9).prefix { $0.isLetter || $0.isNumber })
            }
        )
        let covered = Set(Self.publicRoutes.map(Self.caseName))
        #expect(declared.count > 80)
        #expect(declared.subtracting(covered).isEmpty, "cases without an example: \(declared.subtracting(covered).sorted())")
    }

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
        for route in Self.publicRoutes {
            #expect(registers(route.service, route.path), "\(route.path) is not a route of \(route.service)")
            #expect(PublicService.serving(route.path) == route.service, "the gateway does not send \(route.path) to \(route.service)")
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
