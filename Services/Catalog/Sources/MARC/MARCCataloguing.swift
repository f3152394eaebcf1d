import Foundation
import Shared

/// What MARC records say of a book: the rules of cataloguing in one place (MARC 21 bibliographic, RDA's content,
/// media and carrier types for an online text), and the links an ILS shows patrons (856: the book in the web app, its
/// OPDS entry, its cover).
enum MARCCataloguing {
    /// A book as the export reads it (`MARCExportPostgresRepository`): its entry, with when it was added and withdrawn.
    /// The entry's fields read as its own (`book.title`).
    @dynamicMemberLookup
    struct Book: Sendable {
        var entry: BookEntry
        var addedAt: Date
        var withdrawnAt: Date?

        subscript<Value>(dynamicMember field: KeyPath<BookEntry, Value>) -> Value { entry[keyPath: field] }

        /// The authors' names, in order.
        var authors: [String] { entry.metadata.authors.map(\.name) }
    }

    static func record(for book: Book, status: MARCRecord.Status, publicURL: String) -> MARCRecord {
        var record = MARCRecord(status: status)
        record.controlFields = [
            ("001", book.id.uuidString.lowercased()), ("003", "Bookmobile"), ("005", Self.timestamp(book.withdrawnAt ?? book.updatedAt)),
            ("008", Self.fixedData(book)),
        ]
        let title = book.title.isEmpty ? "Untitled" : book.title
        guard status != .deleted else {
            record.dataFields = [MARCRecord.field("245", "0", "0", [("a", title)])].compactMap { $0 }
            return record
        }
        let (firstAuthor, otherAuthors) = (book.authors.first, book.authors.dropFirst())
        let id = RouteParameter<UUID>.value(book.id)
        let fields: [MARCRecord.DataField?] = [
            MARCRecord.field("020", " ", " ", [("a", book.isbn)]),
            book.languages.count > 1 ? MARCRecord.field("041", "0", " ", book.languages.map { ("a", languageCode($0)) }) : nil,
            firstAuthor.flatMap { MARCRecord.field("100", nameIndicator($0), " ", [("a", $0), ("e", "author.")]) },
            MARCRecord.field(
                "245",
                firstAuthor == nil ? "0" : "1",
                nonfilingCharacters(title),
                [("a", title + (book.subtitle == nil ? "." : " :")), ("b", book.subtitle.map { $0 + "." })]
            ),
            MARCRecord.field("264", " ", "1", [("b", book.publisher), ("c", book.published)]),
            MARCRecord.field("300", " ", " ", [("a", "1 online resource")]),
            MARCRecord.field("336", " ", " ", [("a", "text"), ("b", "txt"), ("2", "rdacontent")]),
            MARCRecord.field("337", " ", " ", [("a", "computer"), ("b", "c"), ("2", "rdamedia")]),
            MARCRecord.field("338", " ", " ", [("a", "online resource"), ("b", "cr"), ("2", "rdacarrier")]),
            MARCRecord.field("347", " ", " ", [("a", "text file"), ("b", "EPUB"), ("2", "rda")]),
            book.series.flatMap { series in
                MARCRecord.field("490", "0", " ", [("a", series), ("v", book.seriesPosition.map { $0.rounded() == $0 ? "\(Int($0))" : "\($0)" })])
            },
            book.description.flatMap { MARCRecord.field("520", " ", " ", [("a", HTMLText.plain(from: $0))]) },
        ]
        record.dataFields = fields.compactMap { $0 }
        record.dataFields += book.subjects.compactMap { MARCRecord.field("650", " ", "4", [("a", $0)]) }
        record.dataFields += otherAuthors.compactMap { MARCRecord.field("700", nameIndicator($0), " ", [("a", $0), ("e", "author.")]) }
        record.dataFields += [
            MARCRecord.field(
                "856",
                "4",
                "0",
                [("u", publicURL + "/#/book/" + book.id.uuidString.lowercased()), ("z", "Borrow or read in the library's web app")]
            ),
            MARCRecord.field(
                "856",
                "4",
                "0",
                [("u", PublicRoute.entry(id).url(publicURL)), ("q", MediaType.opds2Publication), ("z", "OPDS entry, for reading apps")]
            ),
            book.hasCover ? MARCRecord.field("856", "4", "2", [("3", "Cover image"), ("u", PublicRoute.cover(id).url(publicURL))]) : nil,
        ].compactMap { $0 }
        return record
    }

    /// UTC's calendar, made once: a formatter made per record was two allocations of each of a million records.
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// 005: the time of the last change, `yyyyMMddHHmmss.f` (UTC).
    static func timestamp(_ date: Date) -> String {
        let c = utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02d%02d%02d%02d.0", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }

    /// A date's UTC day, `YYYY-MM-DD`.
    static func day(_ date: Date) -> String {
        let c = utc.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
    }

    /// 008, the 40 characters of fixed data for a book: entered on, a single date (the year published, when known),
    /// an online item, its language.
    static func fixedData(_ book: Book) -> String {
        let entered = utc.dateComponents([.year, .month, .day], from: book.addedAt)
        let year = book.published.flatMap { text in
            text.count >= 4 && text.prefix(4).allSatisfy { $0.isASCII && $0.isNumber } ? String(text.prefix(4)) : nil
        }
        let dates = year.map { "s" + $0 + "    " } ?? "nuuuu    "
        let language = book.languages.first.map(languageCode) ?? "und"
        let enteredOn = String(format: "%02d%02d%02d", (entered.year ?? 0) % 100, entered.month ?? 0, entered.day ?? 0)
        let text = enteredOn + dates + "xx " + "    " + " " + "o" + "    " + " " + "000" + " " + "|" + " " + language + " " + "d"
        assert(text.count == 40)
        return text
    }

    /// MARC's language code (ISO 639-2/B) for a book's language tag; `und` when it is not known here.
    static func languageCode(_ tag: String) -> String {
        let primary = tag.lowercased().split(separator: "-").first.map(String.init) ?? ""
        if primary.count == 3 { return primary }
        return languageCodes[primary] ?? "und"
    }

    static let languageCodes: [String: String] = [
        "en": "eng", "fr": "fre", "de": "ger", "es": "spa", "it": "ita", "pt": "por", "nl": "dut", "sv": "swe", "da": "dan",
        "no": "nor", "nb": "nor", "nn": "nor", "fi": "fin", "pl": "pol", "ru": "rus", "ja": "jpn", "zh": "chi", "ar": "ara",
        "he": "heb", "el": "gre", "la": "lat", "cs": "cze", "hu": "hun", "tr": "tur", "ko": "kor", "uk": "ukr", "ca": "cat",
        "eo": "epo", "ga": "gle", "cy": "wel", "is": "ice", "ro": "rum", "hi": "hin", "fa": "per", "vi": "vie",
    ]

    /// A name's first indicator: 1 for "Surname, Forename", 0 for a name in direct order (what EPUBs mostly carry).
    static func nameIndicator(_ name: String) -> Character { name.contains(", ") ? "1" : "0" }

    /// 245's second indicator: the characters a leading English article takes, skipped when the title is filed.
    static func nonfilingCharacters(_ title: String) -> Character {
        for article in ["The ", "An ", "A "] where title.hasPrefix(article) { return Character("\(article.count)") }
        return "0"
    }
}
