import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import PostgresSupport
import Shared
import TestSupport
import Testing

@testable import PatronService

/// A change answers with the book's state built from what it wrote (no query but for a hold), and queues the book's
/// figures built in SQL: both must say what a reading says.
@Suite struct CirculationAnswerTests {
    @Test func everyChangeAnswersWhatTheNextReadingOfTheBookSays() async throws {
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "ans")]))
        try await app.testRouter { client in
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

    /// A change marks its book's figures due; the outbox's pass (`queueDue`, also run by the app's own deliverer in the
    /// background) works them out as the book stands, queues them with the mark as version, and clears the mark. A later
    /// change marks the book again with a higher mark.
    @Test func theQueuedFiguresAreCirculationFiguresOfTheBookAsItNowStands() async throws {
        let url = try await TestDatabase.create(prefix: "figq")
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": url]))
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let (book, other) = (UUID(), UUID())
            try await api.license(book, copies: 2)
            try await api.license(other, copies: 1)
            let key = "figures:\(book.lowercased)"
            func queueDue() async throws {
                try await TestDatabase.withClient(url) { postgres, logger in
                    _ = try await FiguresPostgresRepository.queueDue(client: postgres, logger: logger)
                }
            }
            func queuedFigures() async throws -> CirculationFigures {
                try await queueDue()
                let payloads = try await TestDatabase.query("SELECT payload::text FROM outbox WHERE key = '\(key)'", on: url)
                return try WireFormat.decoder().decode(CirculationFigures.self, from: Data(try #require(payloads.first).utf8))
            }
            try await queueDue()
            try await TestDatabase.execute("DELETE FROM outbox", on: url)
            let (ann, bob, cy) = (try await api.newPatron(), try await api.newPatron(), try await api.newPatron())
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: ann).status == .created)
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: bob).status == .created)
            #expect(try await api.call(.post, "/me/books/\(book)/hold", patron: cy).status == .created)
            #expect(try await api.call(.put, "/me/books/\(book)/rating", patron: ann, json: #"{"stars": 4}"#).status == .ok)
            #expect(try await api.call(.put, "/me/books/\(book)/rating", patron: bob, json: #"{"stars": 5}"#).status == .ok)
            // Saving moves no figure (checked after the pass below).
            #expect(try await api.call(.put, "/me/books/\(other)/saved", patron: ann).status == .ok)
            let figures = try await queuedFigures()
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
            #expect(try await TestDatabase.query("SELECT book_id::text FROM figures_due", on: url).isEmpty, "the pass clears the marks it queued")
            let otherKey = "figures:\(other.lowercased)"
            #expect(try await TestDatabase.query("SELECT key FROM outbox WHERE key = '\(otherKey)'", on: url).isEmpty, "saving moves no figure")
            let path = try await TestDatabase.query("SELECT path FROM outbox WHERE key = '\(key)'", on: url)
            #expect(path == [InternalRoute.bookFigures(book).path])

            #expect(try await api.call(.post, "/me/books/\(book)/return", patron: ann).status == .ok)
            let after = try await queuedFigures()
            #expect(after.version > figures.version, "a later change goes out with a higher version")
            #expect((after.copiesAvailable, after.holds, after.checkouts) == (0, 1, 2), "the copy went to the hold as an offer")
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
        try await app.testRouter { client in
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

/// Figures are worked out after the change, by passes that may run at once on several replicas: whatever the
/// interleaving, the figures left to deliver are those of the book as it finally stands.
@Suite struct FiguresQueueTests {
    /// Every change that moves a book's figures outside a borrow or return marks them due too: a loan and an offer that
    /// expire (the expiry job), a suspended hold resumed, a licence with more copies, a rating removed. Saving does not.
    @Test func everyChangeThatMovesFiguresMarksTheBook() async throws {
        let url = try await TestDatabase.create(prefix: "figm")
        let app = try await buildPatronApplication(
            config: TestConfig.base(["PATRON_DATABASE_URL": url, "LOAN_PERIOD": "1s", "HOLD_OFFER_PERIOD": "1s", "EXPIRY_INTERVAL": "3600"])
        )
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let (book, held) = (UUID(), UUID())
            try await api.license(book, copies: 1)
            try await api.license(held, copies: 1)
            let (ann, bob, cy) = (try await api.newPatron(), try await api.newPatron(), try await api.newPatron())
            // The newest mark of a book: still due, or queued by a pass (the app's own deliverer runs meanwhile, and
            // catalog is unreachable, so what it queued stays in the outbox).
            func newestMark(_ book: UUID) async throws -> Int64 {
                let id = book.lowercased
                let marks = try await TestDatabase.query(
                    """
                    SELECT coalesce(greatest((SELECT mark FROM figures_due WHERE book_id = '\(id)'),
                        (SELECT (payload ->> 'version')::int8 FROM outbox WHERE key = 'figures:\(id)')), 0)::text
                    """,
                    on: url
                )
                return Int64(marks.first ?? "") ?? 0
            }
            func expectMarked(_ book: UUID, _ what: String, by change: () async throws -> Void) async throws {
                let before = try await newestMark(book)
                try await change()
                #expect(try await newestMark(book) > before, "\(what) marks the book's figures due")
            }
            try await expectMarked(book, "a rating removed") {
                #expect(try await api.call(.put, "/me/books/\(book)/rating", patron: ann, json: #"{"stars": 3}"#).status == .ok)
                try await TestDatabase.execute("DELETE FROM figures_due", on: url)
                try await TestDatabase.execute("DELETE FROM outbox", on: url)
                #expect(try await api.call(.delete, "/me/books/\(book)/rating", patron: ann).status.code < 300)
            }
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: ann).status == .created)
            #expect(try await api.call(.post, "/me/books/\(book)/hold", patron: bob).status == .created)
            let rules = CirculationRules(loanPeriod: 1, offerPeriod: 1, publicURL: "")
            try await TestDatabase.withClient(url) { postgres, logger in
                let job = ExpiryJob.forTests(postgres, rules: rules, logger: logger)
                try await Task.sleep(for: .milliseconds(1200))
                try await expectMarked(book, "a loan that expired") {
                    let expired = try await job.runOnce()
                    #expect(expired == 1)
                }
                try await Task.sleep(for: .milliseconds(1200))
                try await expectMarked(book, "an offer that expired") {
                    let expired = try await job.runOnce()
                    #expect(expired == 1)
                }
            }
            #expect(try await api.call(.post, "/me/books/\(held)/borrow", patron: ann).status == .created)
            #expect(try await api.call(.post, "/me/books/\(held)/hold", patron: bob).status == .created)
            let until = WireFormat.formatDate(Date().addingTimeInterval(86_400))
            #expect(try await api.call(.post, "/me/books/\(held)/suspend", patron: bob, json: #"{"until": "\#(until)"}"#).status == .ok)
            try await expectMarked(held, "a suspended hold resumed") {
                let resumed = try await api.call(.post, "/me/books/\(held)/resume", patron: bob)
                #expect(resumed.status == .ok)
            }
            try await expectMarked(book, "a licence with more copies") { try await api.license(book, copies: 3, version: 2) }
            let before = try await newestMark(book)
            #expect(try await api.call(.put, "/me/books/\(book)/saved", patron: cy).status == .ok)
            #expect(try await newestMark(book) == before, "saving moves no figure")
        }
    }

    /// A pass that read an older mark may queue after one that read a newer mark (it waited for the outbox row): its
    /// figures, read before the newer change perhaps, must not replace the newer ones.
    @Test func olderFiguresDoNotReplaceNewerOnes() async throws {
        let url = try await TestDatabase.create(prefix: "figo")
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": url]))
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let book = UUID()
            try await api.license(book, copies: 2)
            let key = FiguresPostgresRepository.keyPrefix + book.lowercased
            func queue(mark: Int64, on postgres: PostgresClient, logger: Logger) async throws -> CirculationFigures {
                for try await _ in try await postgres.run(
                    FiguresPostgresRepository.Queue.self,
                    [book],
                    [mark],
                    [key],
                    [InternalRoute.bookFigures(book).path],
                    CirculationPostgresRepository.occupyingStates,
                    logger: logger
                ) {}
                let payloads = try await TestDatabase.query("SELECT payload::text FROM outbox WHERE key = '\(key)'", on: url)
                return try WireFormat.decoder().decode(CirculationFigures.self, from: Data(try #require(payloads.first).utf8))
            }
            try await TestDatabase.withClient(url) { postgres, logger in
                let newer = try await queue(mark: 1_000_000, on: postgres, logger: logger)
                #expect((newer.version, newer.copiesAvailable) == (1_000_000, 2))
                #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: try await api.newPatron()).status == .created)
                let kept = try await queue(mark: 999_999, on: postgres, logger: logger)
                #expect((kept.version, kept.copiesAvailable) == (1_000_000, 2), "the older mark's figures are dropped")
                #expect(try await queue(mark: 1_000_001, on: postgres, logger: logger).copiesAvailable == 1)
            }
        }
    }

    @Test func concurrentChangesAndPassesLeaveTheFinalFigures() async throws {
        let url = try await TestDatabase.create(prefix: "figr")
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": url]))
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let book = UUID()
            try await api.license(book, copies: 3)
            var patrons: [UUID] = []
            for _ in 0..<12 { patrons.append(try await api.newPatron()) }
            try await TestDatabase.withClient(url) { postgres, logger in
                let everyone = patrons
                try await withThrowingDiscardingTaskGroup { work in
                    work.addTask {
                        for _ in 0..<3 {
                            for action in ["borrow", "return"] {
                                try await withThrowingDiscardingTaskGroup { round in
                                    for patron in everyone {
                                        round.addTask { _ = try await api.call(.post, "/me/books/\(book)/\(action)", patron: patron) }
                                    }
                                }
                            }
                        }
                    }
                    // Two replicas' passes, over the time the changes take.
                    for _ in 0..<2 {
                        work.addTask {
                            for _ in 0..<60 {
                                try await FiguresPostgresRepository.queueDue(client: postgres, logger: logger)
                                try await Task.sleep(for: .milliseconds(5))
                            }
                        }
                    }
                }
                try await FiguresPostgresRepository.queueDue(client: postgres, logger: logger)
            }
            let payloads = try await TestDatabase.query("SELECT payload::text FROM outbox WHERE key = 'figures:\(book.lowercased)'", on: url)
            let figures = try WireFormat.decoder().decode(CirculationFigures.self, from: Data(try #require(payloads.first).utf8))
            let checkouts = try await TestDatabase.query("SELECT count(*)::text FROM loan_history WHERE book_id = '\(book.lowercased)'", on: url)
            #expect((figures.copiesAvailable, figures.holds, String(figures.checkouts)) == (3, 0, checkouts.first ?? ""))
            #expect(try await TestDatabase.query("SELECT book_id::text FROM figures_due", on: url).isEmpty)
        }
    }
}
