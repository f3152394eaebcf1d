import Foundation
import Hummingbird
import HummingbirdTesting
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
            #expect(lines.first == "at,event,book_id,title,patron")
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
        #expect(ReportPseudonym(secret: "a").name(UUID(uuidString: "00000000-0000-0000-0000-000000000001")).count == 24)
        #expect(ReportPseudonym(secret: "a").name(nil) == "")
    }
}
