import Foundation

/// The one JSON wire format of Bookmobile: ISO-8601 dates (with fractional seconds accepted), sorted keys.
public enum WireFormat {
    /// Encodes `value` as Bookmobile JSON. UUIDs come out lower-case, as in every URL and feed (Foundation
    /// writes them upper-case), so that an id compares equal wherever a client meets it.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        lowercasingUUIDs(try encoder().encode(value))
    }

    /// Lower-cases every JSON string that is exactly an upper-case UUID (`"8-4-4-4-12"` hex digits).
    static func lowercasingUUIDs(_ json: Data) -> Data {
        var bytes = [UInt8](json)
        let quote = UInt8(ascii: "\"")
        let dash = UInt8(ascii: "-")
        var index = 0
        while index + 37 < bytes.count {
            guard bytes[index] == quote, bytes[index + 37] == quote else {
                index += 1
                continue
            }
            let body = (index + 1)...(index + 36)
            let isUUID = body.allSatisfy { i in
                let offset = i - index - 1
                return [8, 13, 18, 23].contains(offset) ? bytes[i] == dash : isHexDigit(bytes[i])
            }
            if isUUID {
                for i in body where (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(bytes[i]) { bytes[i] += 32 }
                index += 38
            } else {
                index += 1
            }
        }
        return Data(bytes)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
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

    /// RFC 3339 UTC with milliseconds, e.g. `2026-11-22T10:00:00.000Z`.
    public static func formatDate(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: true).timeSeparator(.colon))
            + "Z"
    }

    /// Parses RFC 3339 with or without fractional seconds.
    public static func parseDate(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)) { return date }
        if let date = try? Date(text, strategy: .iso8601) { return date }
        return nil
    }
}
