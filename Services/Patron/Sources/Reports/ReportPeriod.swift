import Foundation
import Shared

/// The days a report covers, `from` to `to` inclusive (`YYYY-MM-DD`, UTC days): the last 30 days unless asked, at
/// most 366.
struct ReportPeriod: Sendable, Equatable {
    let from: String
    let to: String

    static let longest = 366

    init(from: String?, to: String?, today: Date = Date()) throws {
        let end = try to.map(Self.parse) ?? Self.day(of: today)
        let start = try from.map(Self.parse) ?? end.addingTimeInterval(-29 * 86_400)
        guard start <= end else { throw Problem.badRequest("from must not come after to") }
        guard end.timeIntervalSince(start) < Double(Self.longest) * 86_400 else {
            throw Problem.badRequest("a report covers at most \(Self.longest) days")
        }
        (self.from, self.to) = (Self.format(start), Self.format(end))
    }

    /// The first instant of `from` and the first instant after `to`.
    var bounds: (start: Date, end: Date) {
        let start = Self.formatter.date(from: from)!
        return (start, Self.formatter.date(from: to)!.addingTimeInterval(86_400))
    }

    private static let formatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter
    }()

    private static func parse(_ text: String) throws -> Date {
        guard text.count == 10, let date = formatter.date(from: text) else { throw Problem.badRequest("dates are YYYY-MM-DD, got \(text)") }
        return date
    }

    private static func day(of date: Date) -> Date { formatter.date(from: formatter.string(from: date))! }
    private static func format(_ date: Date) -> String { formatter.string(from: date) }
}
