import Foundation
import Shared
import Testing

@testable import PatronService

/// Circulation answers are written by `BookStatus`'s own `JSONWritable` conformance; they must be what
/// `WireFormat.encode` writes for them, byte for byte, for a book in every state.
@Suite struct BookStatusWritingTests {
    @Test func everyStateIsWrittenAsTheEncoderWritesIt() throws {
        let rules = CirculationRules(loanPeriod: 21 * 86_400, offerPeriod: 3 * 86_400, publicURL: "https://library.example")
        let now = Date()
        var statuses: [BookStatus] = []
        for state in BookState.allCases {
            for (title, authors, hasCover) in [("A \"quoted\" title", ["Ann", "Bob Ö"], true), (nil, nil, false)] as [(String?, [String]?, Bool)] {
                let row = PatronBookRow(
                    bookID: UUID(),
                    state: state,
                    dueAt: now.addingTimeInterval(86_400),
                    offerExpiresAt: now.addingTimeInterval(3_600),
                    holdPlacedAt: now.addingTimeInterval(-60),
                    holdPosition: 3,
                    activeHoldPosition: 2,
                    suspendedUntil: hasCover ? now.addingTimeInterval(7 * 86_400) : nil,
                    copies: 2,
                    title: title,
                    authors: authors,
                    hasCover: hasCover
                )
                statuses.append(row.status(rules: rules, now: now))
            }
        }
        for status in statuses {
            var json = JSONWriter()
            status.write(to: &json)
            #expect(String(decoding: json.bytes, as: UTF8.self) == String(decoding: try WireFormat.encode(status), as: UTF8.self))
        }
        var json = JSONWriter()
        BookStatusList(books: statuses).write(to: &json)
        #expect(json.bytes == [UInt8](try WireFormat.encode(BookStatusList(books: statuses))))
    }
}
