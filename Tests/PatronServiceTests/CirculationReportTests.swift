import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared
import TestSupport
import Testing

@testable import PatronService

/// The console's circulation reports (`ReportController`) against PostgreSQL: every borrow, hold, offer, acceptance,
/// return and renewal recorded once; per day, most borrowed, the holds report with its expected wait; the CSVs match
/// the JSON; events name patrons only by a pseudonym.
@Suite struct CirculationReportTests {
    static let staff: HTTPFields = [.authorization: "Bearer \(TestConfig.adminToken)"]

    @Test func reportsCountTheDaysLoansAndHoldsAndTheirCSVsMatch() async throws {
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "rep")]))
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let (popular, quiet) = (UUID(), UUID())
            try await api.license(popular, copies: 1)
            try await api.license(quiet, copies: 3)
            let patrons = [try await api.newPatron(), try await api.newPatron(), try await api.newPatron(), try await api.newPatron()]
            #expect(try await api.call(.post, "/me/books/\(popular)/borrow", patron: patrons[0]).status == .created)
            for waiting in patrons[1...] { #expect(try await api.call(.post, "/me/books/\(popular)/hold", patron: waiting).status == .created) }
            #expect(try await api.call(.post, "/me/books/\(popular)/renew", patron: patrons[0]).status == .conflict, "holds wait: no renewal")
            #expect(try await api.call(.post, "/me/books/\(quiet)/borrow", patron: patrons[1]).status == .created)
            #expect(try await api.call(.post, "/me/books/\(quiet)/renew", patron: patrons[1]).status == .ok)

            #expect(try await api.call(.get, "/admin/reports/circulation").status == .unauthorized)
            let today = try #require(
                (try await api.call(.get, "/admin/reports/circulation", headers: Self.staff).json["days"] as? [[String: Any]])?.last
            )
            #expect(today["loans"] as? Int == 2 && today["holds"] as? Int == 3 && today["returns"] as? Int == 0, "\(today)")

            // The holds report: three holds on one copy, over a ratio of 1; the quiet book is not there.
            let held = try #require(try await api.call(.get, "/admin/reports/holds?ratio=1", headers: Self.staff).json["books"] as? [[String: Any]])
            #expect(held.map { $0["bookId"] as? String } == [popular.uuidString.lowercased()])
            #expect(held.first?["holds"] as? Int == 3 && held.first?["copies"] as? Int == 1)
            #expect(held.first?["expectedWaitDays"] as? Int == 63, "three turns of the 21-day loan period")

            // Returned: the copy is offered and accepted; the counts follow.
            #expect(try await api.call(.post, "/me/books/\(popular)/return", patron: patrons[0]).status == .ok)
            #expect(try await api.call(.post, "/me/books/\(popular)/accept", patron: patrons[1]).status == .ok)
            let after = try #require(
                (try await api.call(.get, "/admin/reports/circulation", headers: Self.staff).json["days"] as? [[String: Any]])?.last
            )
            #expect(after["loans"] as? Int == 3 && after["returns"] as? Int == 1, "\(after)")
            let top = try #require(try await api.call(.get, "/admin/reports/top-books", headers: Self.staff).json["books"] as? [[String: Any]])
            #expect(top.first?["bookId"] as? String == popular.uuidString.lowercased() && top.first?["loans"] as? Int == 2)

            // The CSVs say the same; events carry a pseudonym, never a patron id.
            let csv = try await api.call(.get, "/admin/reports/circulation.csv", headers: Self.staff)
            #expect(csv.headers[.contentType] == "text/csv; charset=utf-8" && csv.headers[.contentDisposition]?.contains("attachment") == true)
            let lastLine = String(decoding: csv.body, as: UTF8.self).split(separator: "\r\n").last.map(String.init)
            #expect(lastLine == "\(after["day"] as? String ?? ""),3,3,1", "\(lastLine ?? "")")
            let events = String(decoding: try await api.call(.get, "/admin/reports/events.csv", headers: Self.staff).body, as: UTF8.self)
            let lines = events.split(separator: "\r\n").map(String.init)
            #expect(lines.first == "day,event,book_id,title,patron")
            let kinds = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false)[1] }
            #expect(kinds.sorted() == ["accept", "borrow", "borrow", "hold", "hold", "hold", "offer", "renew", "return"], "\(kinds)")
            for patron in patrons { #expect(!events.contains(patron.uuidString.lowercased())) }
            let borrowers = Set(lines.dropFirst().filter { $0.contains(",borrow,") }.map { $0.split(separator: ",").last.map(String.init) ?? "" })
            #expect(borrowers.count == 2 && borrowers.allSatisfy { $0.count == 24 })

            #expect(try await api.call(.get, "/admin/reports/circulation?from=2026-01-10&to=2026-01-01", headers: Self.staff).status == .badRequest)
            #expect(try await api.call(.get, "/admin/reports/circulation?from=2024-01-01&to=2026-01-01", headers: Self.staff).status == .badRequest)
            #expect(try await api.call(.get, "/admin/reports/holds?ratio=-1", headers: Self.staff).status == .badRequest)
        }
    }

    /// What an events export cannot be used for: tying a row to a patron from what the console shows (times are days;
    /// a day's rows are not in the order of their times), or joining two exports (pseudonyms are drawn anew). Who
    /// looked at a patron and who downloaded a report is in the staff audit; after `CIRCULATION_HISTORY_DAYS` events and
    /// ended loans keep no patron.
    @Test func eventsExportsCannotBeTiedToPatronsAndReadingIsAudited() async throws {
        let url = try await TestDatabase.create(prefix: "reppriv")
        let app = try await buildPatronApplication(
            config: TestConfig.base(["PATRON_DATABASE_URL": url, "ADMIN_TOKENS": "ana:ana-token-0123456789"])
        )
        let ana: HTTPFields = [.authorization: "Bearer ana-token-0123456789"]
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let book = UUID()
            try await api.license(book, copies: 5)
            let patron = try await api.newPatron()
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: patron).status == .created)
            func export() async throws -> [[String]] {
                let body = try await api.call(.get, "/admin/reports/events.csv", headers: ana).body
                return String(decoding: body, as: UTF8.self).split(separator: "\r\n").dropFirst().map {
                    $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                }
            }
            let (first, second) = (try await export(), try await export())
            let day = try #require(first.first?.first)
            #expect(day.count == 10 && !day.contains("T"), "a day, not a time: \(day)")
            #expect(first.first?.last != second.first?.last && first.first?.last?.count == 24, "each export names the patron anew")

            #expect(try await api.call(.get, "/admin/patrons/\(patron)", headers: ana).status == .ok)
            let audit = try #require(try await api.call(.get, "/admin/audit", headers: ana).json["entries"] as? [[String: Any]])
            let actions = audit.compactMap { $0["action"] as? String }
            #expect(
                audit.contains {
                    $0["action"] as? String == "viewed" && $0["staff"] as? String == "ana" && $0["patronId"] as? String == patron.lowercased
                }
            )
            #expect(audit.filter { $0["action"] as? String == "report-events" && $0["staff"] as? String == "ana" }.count == 2, "\(actions)")
        }

        // Past the retention: the events and the ended loan keep no patron; a loan still open keeps its patron.
        let logger = Logger(label: "test")
        let database = PostgresClient(configuration: try DatabaseURL.configuration(url), backgroundLogger: logger)
        try await database.whileRunning {
            try await database.query("UPDATE circulation_events SET at = now() - interval '200 days'", logger: logger)
            try await database.query(
                "INSERT INTO loan_history (patron_id, book_id, loaned_at, ended_at) SELECT patron_id, book_id, now() - interval '230 days', now() - interval '200 days' FROM loan_history",
                logger: logger
            )
            let changed = try await CirculationReportPostgresRepository(client: database).anonymise(olderThan: 180, logger: logger)
            #expect(changed == 2, "one event, one ended loan: \(changed)")
            let left = try await database.query(
                "SELECT (SELECT count(*)::int FROM circulation_events WHERE patron_id IS NOT NULL), (SELECT count(*)::int FROM loan_history WHERE patron_id IS NOT NULL)",
                logger: logger
            )
            for try await (events, loans) in left.decode((Int, Int).self) { #expect(events == 0 && loans == 1, "\(events) \(loans)") }
        }
    }

    @Test func csvFieldsAreQuotedAndNeverRunAsFormulas() {
        #expect(CSVText.line(["a", "b,c", "say \"hi\""]) == "a,\"b,c\",\"say \"\"hi\"\"\"\r\n")
        #expect(CSVText.field("=HYPERLINK(\"x\")") == "\"'=HYPERLINK(\"\"x\"\")\"")
        #expect(CSVText.field("-1") == "'-1" && CSVText.field("@sum") == "'@sum" && CSVText.field("plain") == "plain")
    }

    @Test func aReportPeriodIsDaysFromToAtMostAYear() throws {
        let today = try #require(ISO8601DateFormatter().date(from: "2026-11-28T15:00:00Z"))
        let fallback = try ReportPeriod(from: nil, to: nil, today: today)
        #expect(fallback == (try ReportPeriod(from: "2026-10-30", to: "2026-11-28")))
        #expect(throws: Problem.self) { try ReportPeriod(from: "2026-11-29", to: "2026-11-28") }
        #expect(throws: Problem.self) { try ReportPeriod(from: "2025-11-27", to: "2026-11-28") }
        #expect(throws: Problem.self) { try ReportPeriod(from: "28/11/2026", to: nil) }
        let one = UUID(uuidString: "00000000-0000-0000-0000-000000000001")
        let pseudonym = ReportPseudonym()
        #expect(pseudonym.name(one).count == 24 && pseudonym.name(one) == pseudonym.name(one) && pseudonym.name(nil) == "")
        #expect(ReportPseudonym().name(one) != pseudonym.name(one), "another export names the patron otherwise")
    }
}
