import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Shared
import TestSupport
import Testing

@testable import PatronService

/// Purchase suggestions against PostgreSQL: a patron asks for a title (once: asking again answers the waiting one),
/// staff see it with how many asked, merge the same title asked twice, answer it; when a book of that title arrives
/// (its licence from catalog), every asker is told (a notification, hence a live event and mail) and the suggestion
/// says which book; the patron's export has their suggestions; bad input changes nothing.
@Suite struct PurchaseSuggestionTests {
    static let staff: HTTPFields = [.authorization: "Bearer \(TestConfig.adminToken)", .contentType: "application/json"]

    @Test func aSuggestionIsAnsweredMergedAndHeardOfWhenTheBookArrives() async throws {
        let database = try await TestDatabase.create(prefix: "suggest")
        try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": database])).testRouter { client in
            let api = PatronTestClient(client: client)
            let (ann, bob, cat) = (try await api.newPatron(), try await api.newPatron(), try await api.newPatron())
            let first = try await api.call(
                .post,
                "/me/suggestions",
                patron: ann,
                json: #"{"title": "The Left Hand of Darkness", "author": "Ursula K. Le Guin"}"#
            )
            #expect(first.status == .created && first.json["status"] as? String == "open", "\(String(decoding: first.body, as: UTF8.self))")
            let again = try await api.call(.post, "/me/suggestions", patron: ann, json: #"{"title": "left hand of darkness!"}"#)
            #expect(again.status == .ok && again.json["id"] as? String == first.json["id"] as? String, "the same title waits once")
            let bobs = try await api.call(.post, "/me/suggestions", patron: bob, json: #"{"title": "Left Hand of Darkness (1969)"}"#)
            #expect(bobs.status == .created)
            let cats = try await api.call(.post, "/me/suggestions", patron: cat, json: #"{"title": "Zone One", "note": "For our book club"}"#)
            #expect(cats.status == .created)

            // Bad input changes nothing.
            for body in [#"{"title": ""}"#, #"{"title": "!!!"}"#, #"{"title": "x", "isbn": "1"}"#, #"{"author": "Someone"}"#, "not json"] {
                let refused = try await api.call(.post, "/me/suggestions", patron: ann, json: body)
                #expect(refused.status == .badRequest, "\(body): \(refused.status)")
            }
            #expect(try await api.call(.post, "/me/suggestions", json: #"{"title": "Anything"}"#).status == .unauthorized)

            // Staff: every suggestion, merge Bob's into Ann's (one title, two patrons), answer it.
            let listed = try await api.call(.get, "/admin/suggestions", headers: Self.staff)
            #expect((listed.json["suggestions"] as? [[String: Any]])?.count == 3)
            let (annID, bobID) = (try #require(first.json["id"] as? String), try #require(bobs.json["id"] as? String))
            #expect(
                try await api.call(.post, "/admin/suggestions/\(bobID)/merge", body: #"{"into": "\#(annID)"}"#, headers: Self.staff).status
                    == .noContent
            )
            #expect(
                try await api.call(.post, "/admin/suggestions/\(annID)/merge", body: #"{"into": "\#(annID)"}"#, headers: Self.staff).status
                    == .notFound
            )
            let merged = try await api.call(.get, "/admin/suggestions", headers: Self.staff).json["suggestions"] as? [[String: Any]] ?? []
            #expect(merged.count == 2 && merged.first?["askedBy"] as? Int == 2 && merged.first?["id"] as? String == annID, "\(merged)")
            let answered = try await api.call(
                .put,
                "/admin/suggestions/\(annID)",
                body: #"{"status": "ordered", "answer": "On order, due next month"}"#,
                headers: Self.staff
            )
            #expect(answered.status == .noContent)
            #expect(
                try await api.call(.put, "/admin/suggestions/\(annID)", body: #"{"status": "arrived"}"#, headers: Self.staff).status == .badRequest
            )
            #expect(
                try await api.call(.put, "/admin/suggestions/\(bobID)", body: #"{"status": "declined"}"#, headers: Self.staff).status == .notFound
            )
            let bobSees = try await api.call(.get, "/me/suggestions", patron: bob).json["suggestions"] as? [[String: Any]] ?? []
            #expect(bobSees.first?["status"] as? String == "ordered" && bobSees.first?["answer"] as? String == "On order, due next month")
            let audit = try await api.call(.get, "/admin/audit", headers: Self.staff)
            #expect(String(decoding: audit.body, as: UTF8.self).contains("suggestion-answered"))

            // The book arrives (its licence from catalog): Ann and Bob hear of it, Cat does not.
            let book = UUID()
            try await api.license(book, copies: 1)
            var license = License(
                bookId: book,
                copies: 1,
                openAccess: false,
                withdrawn: false,
                title: "The Left Hand of Darkness",
                authors: ["Ursula K. Le Guin"],
                version: 2
            )
            license.hasCover = true
            #expect(
                try await api.call(
                    .put,
                    "/internal/licenses/\(book.uuidString.lowercased())",
                    json: String(decoding: try WireFormat.encode(license), as: UTF8.self)
                ).status == .noContent
            )
            for patron in [ann, bob] {
                let mine = try await api.call(.get, "/me/suggestions", patron: patron).json["suggestions"] as? [[String: Any]] ?? []
                #expect(mine.first?["status"] as? String == "arrived" && mine.first?["bookId"] as? String == book.uuidString.lowercased(), "\(mine)")
                let notes = try await api.call(.get, "/me/notifications", patron: patron)
                #expect(String(decoding: notes.body, as: UTF8.self).contains("suggestion_arrived"))
            }
            let catSees = try await api.call(.get, "/me/suggestions", patron: cat).json["suggestions"] as? [[String: Any]] ?? []
            #expect(catSees.first?["status"] as? String == "open")
            // The patron's export has their suggestions.
            let export = try await api.call(.get, "/me/export", patron: cat)
            let exported = (export.json["suggestions"] as? [[String: Any]])?.first
            #expect(exported?["title"] as? String == "Zone One" && exported?["note"] as? String == "For our book club", "\(export.json.keys)")
            // The licence sent again tells nobody twice.
            license.version = 3
            _ = try await api.call(
                .put,
                "/internal/licenses/\(book.uuidString.lowercased())",
                json: String(decoding: try WireFormat.encode(license), as: UTF8.self)
            )
            let notes = try await api.call(.get, "/me/notifications", patron: ann)
            #expect(String(decoding: notes.body, as: UTF8.self).components(separatedBy: "suggestion_arrived").count == 2)
        }
    }
}
