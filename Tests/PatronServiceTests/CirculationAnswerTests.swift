import Foundation
import Hummingbird
import HummingbirdTesting
import Shared
import TestSupport
import Testing

@testable import PatronService

/// A change answers with the book's state built from what it wrote (no query but for a hold), and queues the book's
/// figures built in SQL: both must say what a reading says.
@Suite struct CirculationAnswerTests {
    @Test func everyChangeAnswersWhatTheNextReadingOfTheBookSays() async throws {
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "ans")]))
        try await app.test(.router) { client in
            let api = PatronTestClient(client: client)
            let (book, other) = (UUID(), UUID())
            try await api.license(book, copies: 1)
            try await api.license(other, copies: 1, hasCover: false)
            let (ann, bob) = (try await api.newPatron(), try await api.newPatron())
            let steps: [(HTTPRequest.Method, UUID, String, UUID)] = [
                (.put, book, "saved", ann), (.post, book, "borrow", ann), (.post, book, "hold", bob), (.post, book, "return", ann),
                (.post, book, "decline", bob), (.post, book, "borrow", bob), (.delete, book, "saved", ann), (.post, book, "return", bob),
                (.post, other, "borrow", ann), (.post, other, "return", ann), (.put, other, "saved", bob), (.delete, other, "saved", bob),
            ]
            for (method, id, action, patron) in steps {
                let answer = try await api.call(method, "/me/books/\(id)/\(action)", patron: patron)
                #expect(answer.status.code < 300, "\(action): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
                let reading = try await api.call(.get, "/me/books/\(id)", patron: patron)
                #expect(NSDictionary(dictionary: answer.json) == NSDictionary(dictionary: reading.json), "\(action) by \(patron)")
            }
        }
    }

    @Test func theQueuedFiguresAreCirculationFiguresOfTheBookAsItNowStands() async throws {
        let url = try await TestDatabase.create(prefix: "figq")
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": url]))
        try await app.test(.router) { client in
            let api = PatronTestClient(client: client)
            let book = UUID()
            try await api.license(book, copies: 2)
            let (ann, bob, cy) = (try await api.newPatron(), try await api.newPatron(), try await api.newPatron())
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: ann).status == .created)
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: bob).status == .created)
            #expect(try await api.call(.post, "/me/books/\(book)/hold", patron: cy).status == .created)
            #expect(try await api.call(.put, "/me/books/\(book)/rating", patron: ann, json: #"{"stars": 4}"#).status == .ok)
            #expect(try await api.call(.put, "/me/books/\(book)/rating", patron: bob, json: #"{"stars": 5}"#).status == .ok)
            let key = "figures:\(book.uuidString.lowercased())"
            let payloads = try await TestDatabase.query("SELECT payload::text FROM outbox WHERE key = '\(key)'", on: url)
            let figures = try WireFormat.decoder().decode(CirculationFigures.self, from: Data(try #require(payloads.first).utf8))
            #expect(
                figures
                    == CirculationFigures(
                        bookId: book,
                        copiesTotal: 2,
                        copiesAvailable: 0,
                        holds: 1,
                        checkouts: 2,
                        ratingAverage: 4.5,
                        ratingCount: 2,
                        version: figures.version
                    )
            )
            #expect(figures.version >= 5, "each change bumps the version")
            let path = try await TestDatabase.query("SELECT path FROM outbox WHERE key = '\(key)'", on: url)
            #expect(path == [InternalRoute.bookFigures(book).path])
        }
    }
}
