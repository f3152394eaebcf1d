import Foundation
import Hummingbird
import Logging
import ServiceSupport
import Shared

/// `/admin/reports/...` (admin tokens): circulation per day, the most borrowed books and the holds report as JSON for
/// the console, and each, with every event, as CSV streamed while it is read (`.csv`; the patron pseudonymised anew in
/// each export, times to the day). Every download is written to the staff audit with the token's name.
struct ReportController: Sendable {
    let reports: CirculationReportPostgresRepository
    let audit: StaffAuditPostgresRepository
    let loanPeriod: TimeInterval

    func add(to admin: RouterGroup<PatronRequestContext>) {
        admin.get(.report(.circulation)) { request, context in
            let period = try Self.period(request)
            return try JSONMessages.response(
                CirculationAnswer(from: period.from, to: period.to, days: try await reports.perDay(period, logger: context.logger)),
                headers: [.cacheControl: "no-store"]
            )
        }
        admin.get(.report(.topBooks)) { request, context in
            let period = try Self.period(request)
            return try JSONMessages.response(
                TopBooksAnswer(
                    from: period.from,
                    to: period.to,
                    books: try await reports.topBooks(period, limit: try Self.limit(request), logger: context.logger)
                ),
                headers: [.cacheControl: "no-store"]
            )
        }
        admin.get(.report(.holds)) { request, context in
            let ratio = try Self.ratio(request)
            return try JSONMessages.response(
                HoldsAnswer(ratio: ratio, books: try await reports.holds(over: ratio, loanPeriod: loanPeriod, logger: context.logger)),
                headers: [.cacheControl: "no-store"]
            )
        }
        admin.get(.reportCSV(.circulation), use: circulationCSV)
        admin.get(.reportCSV(.topBooks), use: topBooksCSV)
        admin.get(.reportCSV(.holds), use: holdsCSV)
        admin.get(.reportCSV(.events), use: eventsCSV)
    }

    struct CirculationAnswer: Encodable {
        let from: String
        let to: String
        let days: [CirculationReportPostgresRepository.Day]
    }

    struct TopBooksAnswer: Encodable {
        let from: String
        let to: String
        let books: [CirculationReportPostgresRepository.TopBook]
    }

    struct HoldsAnswer: Encodable {
        let ratio: Double
        let books: [CirculationReportPostgresRepository.HeldBook]
    }

    static func period(_ request: Request) throws -> ReportPeriod {
        try ReportPeriod(from: request.uri.queryParameters.get("from"), to: request.uri.queryParameters.get("to"))
    }

    static func limit(_ request: Request) throws -> Int {
        guard let limit = Int(request.uri.queryParameters.get("limit") ?? "20"), (1...500).contains(limit) else {
            throw Problem.badRequest("limit must be 1 to 500")
        }
        return limit
    }

    /// Holds per copy above which a book is listed: `ratio`, 1 unless asked (0 lists every book with a hold).
    static func ratio(_ request: Request) throws -> Double {
        guard let ratio = Double(request.uri.queryParameters.get("ratio") ?? "1"), ratio.isFinite, (0...1_000).contains(ratio) else {
            throw Problem.badRequest("ratio must be a number from 0 to 1000")
        }
        return ratio
    }

    func circulationCSV(request: Request, context: PatronRequestContext) async throws -> Response {
        let period = try Self.period(request)
        try await downloaded("circulation", period: period, context: context)
        let days = try await reports.perDay(period, logger: context.logger)
        let lines =
            [CSVText.line(["day", "loans", "holds", "returns"])] + days.map { CSVText.line([$0.day, "\($0.loans)", "\($0.holds)", "\($0.returns)"]) }
        return Self.csv(lines.joined(), name: "circulation-\(period.from)-\(period.to)")
    }

    func topBooksCSV(request: Request, context: PatronRequestContext) async throws -> Response {
        let period = try Self.period(request)
        try await downloaded("most-borrowed", period: period, context: context)
        let books = try await reports.topBooks(period, limit: try Self.limit(request), logger: context.logger)
        let lines =
            [CSVText.line(["book_id", "title", "loans"])]
            + books.map { CSVText.line([$0.bookId.uuidString.lowercased(), $0.title ?? "", "\($0.loans)"]) }
        return Self.csv(lines.joined(), name: "most-borrowed-\(period.from)-\(period.to)")
    }

    func holdsCSV(request: Request, context: PatronRequestContext) async throws -> Response {
        let ratio = try Self.ratio(request)
        try await downloaded("holds", period: nil, context: context)
        let books = try await reports.holds(over: ratio, loanPeriod: loanPeriod, logger: context.logger)
        let lines =
            [CSVText.line(["book_id", "title", "copies", "holds", "holds_per_copy", "expected_wait_days"])]
            + books.map {
                CSVText.line([
                    $0.bookId.uuidString.lowercased(), $0.title ?? "", "\($0.copies)", "\($0.holds)", "\($0.holdsPerCopy)", "\($0.expectedWaitDays)",
                ])
            }
        return Self.csv(lines.joined(), name: "holds")
    }

    /// Every event of the period, written as the rows come (a year of a busy library is millions of lines).
    func eventsCSV(request: Request, context: PatronRequestContext) async throws -> Response {
        let period = try Self.period(request)
        try await downloaded("events", period: period, context: context)
        // A key of this export's own, and days rather than times: rows cannot be tied to what the console shows of a
        // patron (a loan's due time, an offer's deadline) nor joined with another export's.
        let (reports, pseudonym, logger) = (self.reports, ReportPseudonym(), context.logger)
        return Response(
            status: .ok,
            headers: Self.csvHeaders(name: "events-\(period.from)-\(period.to)"),
            body: ResponseBody { writer in
                var buffer = ByteBuffer(string: CSVText.line(["day", "event", "book_id", "title", "patron"]))
                try await reports.events(period, logger: logger) { day, event, book, title, patron in
                    buffer.writeString(CSVText.line([day, event, book.uuidString.lowercased(), title ?? "", pseudonym.name(patron)]))
                    if buffer.readableBytes >= 64 << 10 {
                        try await writer.write(buffer)
                        buffer.clear()
                    }
                }
                try await writer.write(buffer)
                try await writer.finish(nil)
            }
        )
    }

    /// The staff audit's entry for a report downloaded (`report-<name>`, with the period).
    func downloaded(_ report: String, period: ReportPeriod?, context: PatronRequestContext) async throws {
        let detail = period.map { "\($0.from) to \($0.to)" } ?? ""
        try await audit.record("report-\(report)", staff: PatronAdminController.staff, detail: detail, logger: context.logger)
    }

    static func csvHeaders(name: String) -> HTTPFields {
        [
            .contentType: "text/csv; charset=utf-8", .cacheControl: "no-store",
            .contentDisposition: "attachment; filename=\"\(name).csv\"",
        ]
    }

    static func csv(_ text: String, name: String) -> Response {
        Response(status: .ok, headers: csvHeaders(name: name), body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
