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

/// A circulation change draws its shelf stamp inside its own transaction; readings of the shelf lock the patron's row
/// first, so that no reading numbered above a stamp can miss the change (read-your-writes for catalog's copy).
@Suite struct ShelfStampTests {
    @Test func noReadingNumberedAboveAChangesStampMissesTheChange() async throws {
        let app = try await buildPatronApplication(
            config: TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "stamp"), "LOAN_LIMIT": "100"])
        )
        try await app.test(.router) { client in
            let api = PatronTestClient(client: client)
            let patron = try await api.newPatron()
            let books = (0..<24).map { _ in UUID() }
            for book in books { try await api.license(book, copies: 1) }
            for (round, book) in books.enumerated() {
                let action = round % 2 == 0 ? "borrow" : "saved"
                let stampAndReadings = try await withThrowingTaskGroup(of: (Int64?, ShelfCopy?).self) { group in
                    group.addTask {
                        let reply = try await api.call(action == "borrow" ? .post : .put, "/me/books/\(book)/\(action)", patron: patron)
                        #expect(reply.status.code < 300)
                        return (reply.headers[.shelfVersion].flatMap { Int64($0) }, nil)
                    }
                    for _ in 0..<6 {
                        group.addTask {
                            let reply = try await api.call(.get, InternalRoute.patronShelf(patron).path)
                            return (nil, try reply.decode(ShelfCopy.self))
                        }
                    }
                    var stamp: Int64?
                    var readings: [ShelfCopy] = []
                    for try await (drawn, reading) in group {
                        if let drawn { stamp = drawn }
                        if let reading { readings.append(reading) }
                    }
                    return (stamp, readings)
                }
                let stamp = try #require(stampAndReadings.0, "the change answers its stamp itself")
                for reading in stampAndReadings.1 where reading.version > stamp {
                    #expect(reading.shelf.books.contains { $0.bookId == book }, "reading \(reading.version) above stamp \(stamp) misses \(action)")
                }
                let after = try await api.call(.get, InternalRoute.patronShelf(patron).path).decode(ShelfCopy.self)
                #expect(after.version > stamp && after.shelf.books.contains { $0.bookId == book })
            }
        }
    }
}
