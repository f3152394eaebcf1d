import Foundation

/// The one JSON wire format of Bookmobile: ISO-8601 dates (with fractional seconds accepted), sorted keys.
public enum WireFormat {
    /// Encodes `value` as Bookmobile JSON. UUIDs come out lower-case, as in every URL and feed (Foundation
    /// writes them upper-case), so that an id compares equal wherever a client meets it.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        try encoder().encode(value)
    }

    private static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(formatDate(date))
        }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = parseDate(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected an RFC 3339 date, got \(text)")
            }
            return date
        }
        return decoder
    }

    /// RFC 3339 UTC with milliseconds (truncated), e.g. `2026-11-22T10:00:00.000Z`. Computed by hand: every feed entry
    /// and JSON answer carries dates, and Foundation's ISO 8601 format style cost a few microseconds each.
    public static func formatDate(_ date: Date) -> String {
        var text = [UInt8]()
        text.reserveCapacity(24)
        appendDate(date, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// `formatDate`'s 24 characters at the end of `text`.
    public static func appendDate(_ date: Date, to text: inout [UInt8]) {
        // From the interval a `Date` holds (since 2001), as Foundation reads it: whole seconds, then the fraction's
        // nanoseconds truncated to milliseconds.
        let interval = date.timeIntervalSinceReferenceDate
        let whole = interval.rounded(.down)
        let fraction = Int64((interval - whole) * 1_000_000_000) / 1_000_000
        let seconds = Int64(whole) + 978_307_200
        var days = seconds / 86_400
        var time = seconds % 86_400
        if time < 0 {
            time += 86_400
            days -= 1
        }
        time = time * 1000 + fraction
        // Days since 1970-01-01 as a proleptic Gregorian date (Howard Hinnant's civil_from_days).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func append(_ value: Int64, digits: Int) {
            var divisor: Int64 = 1
            for _ in 1..<digits { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        append(year, digits: 4)
        text.append(UInt8(ascii: "-"))
        append(month, digits: 2)
        text.append(UInt8(ascii: "-"))
        append(day, digits: 2)
        text.append(UInt8(ascii: "T"))
        append(time / 3_600_000, digits: 2)
        text.append(UInt8(ascii: ":"))
        append(time / 60_000 % 60, digits: 2)
        text.append(UInt8(ascii: ":"))
        append(time / 1000 % 60, digits: 2)
        text.append(UInt8(ascii: "."))
        append(time % 1000, digits: 3)
        text.append(UInt8(ascii: "Z"))
    }

    /// Parses RFC 3339 with or without fractional seconds.
    public static func parseDate(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)) { return date }
        if let date = try? Date(text, strategy: .iso8601) { return date }
        return nil
    }
}
