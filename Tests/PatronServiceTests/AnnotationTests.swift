import Foundation
import Hummingbird
import HummingbirdTesting
import Shared
import TestSupport
import Testing

@testable import PatronService

/// `/me/annotations/`: the Palace/SimplyE view of the same bookmarks and positions.
@Suite struct AnnotationTests {
    static func annotation(book: UUID, motivation: String, href: String, progress: Double, time: String = "2026-11-01T10:00:00Z") -> String {
        let place = #"{\"@type\":\"LocatorHrefProgression\",\"href\":\"\#(href)\",\"progressWithinChapter\":\#(progress)}"#
        return """
            {"@context": "http://www.w3.org/ns/anno.jsonld", "type": "Annotation", "motivation": "\(motivation)",
             "body": {"http://librarysimplified.org/terms/time": "\(time)", "http://librarysimplified.org/terms/device": "urn:uuid:device-1"},
             "target": {"source": "urn:uuid:\(book.uuidString.lowercased())", "selector": {"type": "oa:FragmentSelector", "value": "\(place)"}}}
            """
    }

    @Test func bookmarksAndPositionsRoundTripBetweenBothAPIs() async throws {
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "anno")]))
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let book = UUID()
            try await api.license(book, copies: 1)
            let ann = try await api.newPatron()
            let bob = try await api.newPatron()
            _ = try await api.call(.post, "/me/books/\(book)/borrow", patron: ann)

            // An annotation becomes a bookmark...
            let created = try await api.call(
                .post,
                "/me/annotations",
                patron: ann,
                json: Self.annotation(book: book, motivation: Annotation.bookmarking, href: "c1.xhtml", progress: 0.25)
            )
            #expect(created.status == .created, "\(String(decoding: created.body, as: UTF8.self))")
            #expect(created.headers[.contentType]?.hasPrefix("application/ld+json") == true)
            let bookmarks = try #require(try await api.call(.get, "/me/books/\(book)/bookmarks", patron: ann).json["bookmarks"] as? [[String: Any]])
            #expect(bookmarks.count == 1)
            #expect(((bookmarks.first?["locator"] as? [String: Any])?["locations"] as? [String: Any])?["progression"] as? Double == 0.25)
            #expect(
                try await api.call(
                    .post,
                    "/me/annotations",
                    patron: ann,
                    json: Self.annotation(book: book, motivation: Annotation.bookmarking, href: "c1.xhtml", progress: 0.25)
                ).status == .ok
            )

            // ...and a bookmark appears as an annotation, next to the position written as "idling".
            _ = try await api.call(.post, "/me/books/\(book)/bookmarks", patron: ann, json: #"{"locator":{"href":"c2.xhtml","progression":0.5}}"#)
            #expect(
                try await api.call(
                    .post,
                    "/me/annotations",
                    patron: ann,
                    json: Self.annotation(book: book, motivation: Annotation.idling, href: "c2.xhtml", progress: 0.75)
                ).status == .ok
            )
            let stale = try await api.call(
                .post,
                "/me/annotations",
                patron: ann,
                json: Self.annotation(book: book, motivation: Annotation.idling, href: "c1.xhtml", progress: 0.1, time: "2026-10-01T00:00:00Z")
            )
            #expect(stale.status == .conflict)
            let position = try await api.call(.get, "/me/books/\(book)/position", patron: ann).json
            #expect((position["locator"] as? [String: Any])?["href"] as? String == "c2.xhtml")
            let collection = try await api.call(.get, "/me/annotations/\(book)", patron: ann).json
            #expect(collection["total"] as? Int == 3)
            let items = ((collection["first"] as? [String: Any])?["items"] as? [[String: Any]]) ?? []
            #expect(items.filter { $0["motivation"] as? String == Annotation.bookmarking }.count == 2)
            #expect(items.filter { $0["motivation"] as? String == Annotation.idling }.count == 1)

            // Another patron sees none of it and cannot remove it; the owner can.
            #expect(try await api.call(.get, "/me/annotations", patron: bob).json["total"] as? Int == 0)
            let id = try #require((created.json["id"] as? String)?.split(separator: "/").last.map(String.init))
            #expect(try await api.call(.delete, "/me/annotations/\(id)", patron: bob).status == .notFound)
            #expect(try await api.call(.delete, "/me/annotations/\(id)", patron: ann).status == .noContent)
            #expect((try await api.call(.get, "/me/books/\(book)/bookmarks", patron: ann).json["bookmarks"] as? [Any])?.count == 1)

            // Bad annotations are 400s; with sync off nothing new is kept, and the app is told so.
            for bad in [
                #"{"motivation": "x"}"#, #"{"motivation": "http://www.w3.org/ns/oa#bookmarking", "target": {"source": "urn:isbn:1"}}"#, "[1]",
            ] {
                #expect(try await api.call(.post, "/me/annotations", patron: ann, json: bad).status == .badRequest, "\(bad)")
            }
            let settings = #"{"fontFamily":"serif","fontSize":100,"theme":"day","brightness":0.5,"syncBookmarks":false}"#
            #expect(try await api.call(.put, "/me/settings", patron: ann, json: settings).status == .ok)
            let refused = try await api.call(
                .post,
                "/me/annotations",
                patron: ann,
                json: Self.annotation(book: book, motivation: Annotation.bookmarking, href: "c3.xhtml", progress: 0.5)
            )
            #expect(refused.status == .conflict && refused.json["type"] as? String == "https://bookmobile.dev/problems/sync-disabled")
        }
    }

    @Test func aLargeCollectionIsPagedAndEveryAnnotationIsOnExactlyOnePage() async throws {
        let url = try await TestDatabase.create(prefix: "annopages")
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": url]))
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let patron = try await api.newPatron()
            let book = UUID()
            try await api.license(book, copies: 0, openAccess: true)
            let count = AnnotationController.pageSize + 5
            for place in 0..<5 {
                let body = #"{"locator":{"href":"c1.xhtml","progression":0.\#(place)}}"#
                #expect(try await api.call(.post, "/me/books/\(book)/bookmarks", patron: patron, json: body).status == .created)
            }
            // The rest as the API writes them, made in one statement.
            try await TestDatabase.execute(
                """
                INSERT INTO bookmarks (id, patron_id, book_id, locator, locator_key, created_at)
                SELECT gen_random_uuid(), patron_id, book_id, locator, locator_key || n, created_at + n * interval '1 second'
                FROM bookmarks, generate_series(1, \(count - 5)) AS n WHERE locator_key LIKE '%0.000000%'
                """,
                on: url
            )
            let position = #"{"locator":{"href":"c1.xhtml","locations":{"progression":0.5}},"timestamp":"2026-11-01T10:00:00Z","device":"d"}"#
            #expect(try await api.call(.put, "/me/books/\(book)/position", patron: patron, json: position).status == .ok)

            let collection = try await api.call(.get, "/me/annotations", patron: patron).json
            #expect(collection["total"] as? Int == count + 1)
            let first = try #require(collection["first"] as? [String: Any])
            #expect((first["items"] as? [Any])?.count == AnnotationController.pageSize)
            let next = try #require(first["next"] as? String)
            #expect(next.hasSuffix("/me/annotations/?page=2"))
            #expect(collection["last"] as? String == next)
            let second = try await api.call(.get, "/me/annotations?page=2", patron: patron).json
            #expect(second["type"] as? String == "AnnotationPage")
            #expect(second["startIndex"] as? Int == AnnotationController.pageSize)
            #expect(second["next"] == nil)
            let items = ((first["items"] as? [[String: Any]]) ?? []) + ((second["items"] as? [[String: Any]]) ?? [])
            #expect(Set(items.compactMap { $0["id"] as? String }).count == count + 1, "every annotation once")
            #expect(items.last?["motivation"] as? String == Annotation.idling, "the position after the bookmarks")
            #expect(try await api.call(.get, "/me/annotations?page=0", patron: patron).status == .badRequest)
            #expect(try await api.call(.get, "/me/annotations?page=x", patron: patron).status == .badRequest)

            // The export streams all of it as one JSON document.
            let export = try await api.call(.get, "/me/export", patron: patron)
            #expect(export.status == .ok)
            #expect((export.json["bookmarks"] as? [Any])?.count == count)
            #expect((export.json["positions"] as? [String: Any])?.count == 1)
        }
    }
}
