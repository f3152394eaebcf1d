import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import PostgresSupport
import Shared
import TestSupport
import Testing

@testable import PatronService

@Suite struct CirculationTests {
    func app(_ overrides: [String: String] = [:]) async throws -> (some ApplicationProtocol, String) {
        let url = try await TestDatabase.create(prefix: "circ")
        let app = try await buildPatronApplication(
            config: TestConfig.base(["PATRON_DATABASE_URL": url, "EXPIRY_INTERVAL": "3600"].merging(overrides) { $1 })
        )
        return (app, url)
    }

    /// With one replica, then with two replicas of the service sharing the database.
    @Test(arguments: [1, 2]) func twoHundredSimultaneousBorrowersShareThreeCopies(replicas: Int) async throws {
        let (app, url) = try await app()
        let second = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": url, "EXPIRY_INTERVAL": "3600"]))
        try await app.testRouter { first in
            try await second.testRouter { other in
                let apis = [PatronTestClient(client: first), PatronTestClient(client: other)].prefix(replicas)
                let book = UUID()
                try await apis[0].license(book, copies: 3)
                var patrons: [UUID] = []
                for _ in 0..<200 { patrons.append(try await apis[0].newPatron()) }
                let statuses = try await withThrowingTaskGroup(of: (HTTPResponse.Status, String?).self) { group in
                    for (n, patron) in patrons.enumerated() {
                        group.addTask {
                            let reply = try await apis[n % replicas].call(.post, "/me/books/\(book)/borrow", patron: patron)
                            return (reply.status, reply.json["type"] as? String)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(statuses.filter { $0.0 == .created }.count == 3)
                let refused = statuses.filter { $0.0 == .conflict }
                #expect(refused.count == 197)
                #expect(refused.allSatisfy { $0.1 == Problem.typeBase + "no-copies-available" })
            }
        }
    }

    @Test func theHoldQueueIsServedInOrderThroughDeclines() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let book = UUID()
            try await api.license(book, copies: 1)
            let owner = try await api.newPatron()
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: owner).status == .created)
            var queue: [UUID] = []
            for _ in 0..<5 { queue.append(try await api.newPatron()) }
            for patron in queue { #expect(try await api.call(.post, "/me/books/\(book)/hold", patron: patron).status == .created) }
            let third = try await api.call(.get, "/me/books/\(book)", patron: queue[2]).decode(BookStatus.self)
            #expect(third.state == .waitingForLoan && third.holdPosition == 3 && third.estimatedWait == "about 9 weeks")
            #expect(try await api.call(.post, "/me/books/\(book)/return", patron: owner).status == .ok)
            for (index, patron) in queue.enumerated() {
                let status = try await api.call(.get, "/me/books/\(book)", patron: patron).decode(BookStatus.self)
                #expect(status.state == (index == 0 ? .loanOffered : .waitingForLoan))
                if index > 0 { #expect(status.holdPosition == index) }
            }
            #expect(try await api.call(.post, "/me/books/\(book)/decline", patron: queue[0]).status == .ok)
            let second = try await api.call(.get, "/me/books/\(book)", patron: queue[1]).decode(BookStatus.self)
            #expect(second.state == .loanOffered)
            #expect(try await api.call(.post, "/me/books/\(book)/accept", patron: queue[1]).status == .ok)
            let notifications = try await api.call(.get, "/me/notifications", patron: queue[1])
            #expect((notifications.json["unread"] as? Int ?? 0) >= 1)
        }
    }

    /// One rule for every caller: a book that becomes open access (a licence update from catalog) is offered to
    /// everyone waiting for it, as a return of such a book would; before, the licence update offered it to no one.
    @Test func aBookThatBecomesOpenAccessIsOfferedToEveryoneWaiting() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let book = UUID()
            try await api.license(book, copies: 0)
            var queue: [UUID] = []
            for _ in 0..<3 {
                let patron = try await api.newPatron()
                #expect(try await api.call(.post, "/me/books/\(book)/hold", patron: patron).status == .created)
                queue.append(patron)
            }
            try await api.license(book, copies: 0, openAccess: true, version: 2)
            for patron in queue {
                #expect(try await api.call(.get, "/me/books/\(book)", patron: patron).decode(BookStatus.self).state == .loanOffered)
            }
        }
    }

    /// A loan is renewed by a loan period while nobody waits; with someone waiting it is a 409, and a book not on
    /// loan cannot be renewed (409 with the patron's state and what it allows).
    @Test func aLoanIsRenewedOnlyWhileNobodyWaits() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let book = UUID()
            try await api.license(book, copies: 1)
            let (ann, bob) = (try await api.newPatron(), try await api.newPatron())
            let lent = try await api.call(.post, "/me/books/\(book)/borrow", patron: ann).decode(BookStatus.self)
            let renewed = try await api.call(.post, "/me/books/\(book)/renew", patron: ann)
            #expect(renewed.status == .ok)
            let due = try #require(try renewed.decode(BookStatus.self).dueAt)
            #expect(due > (try #require(lent.dueAt)))
            let notLent = try await api.call(.post, "/me/books/\(book)/renew", patron: bob)
            #expect(notLent.status == .conflict)
            #expect(notLent.json["type"] as? String == Problem.typeBase + "illegal-transition" && notLent.json["state"] as? String == "none")
            #expect(try await api.call(.post, "/me/books/\(book)/hold", patron: bob).status == .created)
            let waited = try await api.call(.post, "/me/books/\(book)/renew", patron: ann)
            #expect(waited.status == .conflict)
            #expect(waited.json["type"] as? String == Problem.typeBase + "holds-waiting")
        }
    }

    @Test func anIllegalEventIsRefusedWithTheStateAndChangesNothing() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let book = UUID()
            try await api.license(book, copies: 2)
            let patron = try await api.newPatron()
            let refused = try await api.call(.post, "/me/books/\(book)/return", patron: patron)
            #expect(refused.status == .conflict)
            #expect(refused.json["state"] as? String == "none")
            #expect(Set(refused.json["allowedEvents"] as? [String] ?? []) == ["save", "hold", "borrow"])
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: patron).status == .created)
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: patron).status == .ok)
            #expect(try await api.call(.post, "/me/books/\(book)/events", patron: patron, json: #"{"event":"opened"}"#).status == .conflict)
            let started = try await api.call(.post, "/me/books/\(book)/events", patron: patron, json: #"{"event":"download_started"}"#)
            #expect(started.status == .ok, "\(String(decoding: started.body, as: UTF8.self))")
            #expect(try await api.call(.post, "/me/books/\(book)/events", patron: patron, json: #"{"event":"borrow"}"#).status == .badRequest)
            let state = try await api.call(.get, "/me/books/\(book)", patron: patron).decode(BookStatus.self)
            #expect(state.state == .downloading)
            #expect(try await api.call(.post, "/me/books/\(UUID())/borrow", patron: patron).status == .notFound)
            #expect(try await api.call(.post, "/me/books/not-a-uuid/borrow", patron: patron).status == .badRequest)
        }
    }

    @Test func loanLimitIsA403ThatSaysTheLimit() async throws {
        let (app, _) = try await app(["LOAN_LIMIT": "1"])
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let (first, second) = (UUID(), UUID())
            try await api.license(first, copies: 1)
            try await api.license(second, copies: 1)
            let patron = try await api.newPatron()
            #expect(try await api.call(.post, "/me/books/\(first)/borrow", patron: patron).status == .created)
            let refused = try await api.call(.post, "/me/books/\(second)/borrow", patron: patron)
            #expect(refused.status == .forbidden)
            #expect(refused.json["limit"] as? Int == 1)
        }
    }

    @Test func expiredLoansAndOffersMoveTheQueueOnceEvenWithTwoJobs() async throws {
        let (app, url) = try await app(["LOAN_PERIOD": "1s", "HOLD_OFFER_PERIOD": "1s"])
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let book = UUID()
            try await api.license(book, copies: 1)
            let (owner, first, second) = (try await api.newPatron(), try await api.newPatron(), try await api.newPatron())
            _ = try await api.call(.post, "/me/books/\(book)/borrow", patron: owner)
            _ = try await api.call(.post, "/me/books/\(book)/hold", patron: first)
            _ = try await api.call(.post, "/me/books/\(book)/hold", patron: second)
            try await Task.sleep(for: .milliseconds(1200))
            let logger = Logger(label: "test")
            let postgres = PostgresClient(configuration: try DatabaseURL.configuration(url), backgroundLogger: logger)
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { await postgres.run() }
                let rules = CirculationRules(loanPeriod: 1, offerPeriod: 1, publicURL: "")
                let job = ExpiryJob.forTests(postgres, rules: rules, logger: logger)
                async let a = job.runOnce()
                async let b = job.runOnce()
                let applied = try await a + b
                #expect(applied == 1)
                #expect(try await api.call(.get, "/me/books/\(book)", patron: owner).decode(BookStatus.self).state == .loanExpired)
                #expect(try await api.call(.get, "/me/books/\(book)", patron: first).decode(BookStatus.self).state == .loanOffered)
                try await Task.sleep(for: .milliseconds(1200))
                _ = try await job.runOnce()
                #expect(try await api.call(.get, "/me/books/\(book)", patron: first).decode(BookStatus.self).state == .loanOfferExpired)
                #expect(try await api.call(.get, "/me/books/\(book)", patron: second).decode(BookStatus.self).state == .loanOffered)
                group.cancelAll()
            }
        }
    }

    /// 100 patrons hold a 1-copy book at once (through two replicas); the copy then travels down the queue strictly in order
    /// through accepts and returns, declines, cancellations made while it moves, and unanswered offers that expire.
    /// Every hold ends as one loan or one clear refusal, and after every step every row of the book is checked.
    @Test func aHundredHoldsAreServedStrictlyInQueueOrder() async throws {
        let (app, url) = try await app(["HOLD_OFFER_PERIOD": "1s"])
        let second = try await buildPatronApplication(
            config: TestConfig.base(["PATRON_DATABASE_URL": url, "EXPIRY_INTERVAL": "3600", "HOLD_OFFER_PERIOD": "1s"])
        )
        let logger = Logger(label: "test")
        let postgres = PostgresClient(configuration: try DatabaseURL.configuration(url), backgroundLogger: logger)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await postgres.run() }
            try await app.testRouter { first in
                try await second.testRouter { other in
                    let apis = [PatronTestClient(client: first), PatronTestClient(client: other)]
                    let api = apis[0]
                    let book = UUID()
                    try await api.license(book, copies: 1)
                    let owner = try await api.newPatron()
                    #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: owner).status == .created)
                    var patrons: [UUID] = []
                    for _ in 0..<100 { patrons.append(try await api.newPatron()) }

                    // The storm: every hold at once, alternating replicas. Each gets a distinct place in line.
                    let positions = try await withThrowingTaskGroup(of: (UUID, HTTPResponse.Status, Int?).self) { holds in
                        for (n, patron) in patrons.enumerated() {
                            holds.addTask {
                                let reply = try await apis[n % 2].call(.post, "/me/books/\(book)/hold", patron: patron)
                                return (patron, reply.status, reply.json["holdPosition"] as? Int)
                            }
                        }
                        return try await holds.reduce(into: []) { $0.append($1) }
                    }
                    #expect(positions.allSatisfy { $0.1 == .created })
                    // Positions given at the moment of each hold can coincide only if the storm broke the order.
                    let queue = try await waitingOrder(book, postgres, logger)
                    #expect(Set(queue) == Set(patrons) && queue.count == 100)
                    for (index, patron) in queue.enumerated() {
                        let status = try await api.call(.get, "/me/books/\(book)", patron: patron).decode(BookStatus.self)
                        #expect(status.holdPosition == index + 1)
                    }
                    try await checkEveryRow(book, copies: 1, postgres, logger)

                    // While the copy comes back, ten patrons deep in the line give up at the same moment.
                    let quitters = Set(queue[40..<50])
                    try await withThrowingDiscardingTaskGroup { moves in
                        moves.addTask {
                            let status = try await api.call(.post, "/me/books/\(book)/return", patron: owner).status
                            #expect(status == .ok)
                        }
                        for (n, patron) in quitters.enumerated() {
                            moves.addTask {
                                let status = try await apis[n % 2].call(.delete, "/me/books/\(book)/hold", patron: patron).status
                                #expect(status == .ok)
                            }
                        }
                    }
                    try await checkEveryRow(book, copies: 1, postgres, logger)

                    let job = ExpiryJob.forTests(postgres, rules: CirculationRules(loanPeriod: 3600, offerPeriod: 1, publicURL: ""), logger: logger)
                    var outcomes: [UUID: String] = [:]
                    for (index, patron) in queue.enumerated() where !quitters.contains(patron) {
                        // Exactly this patron, and nobody else, holds the offer.
                        #expect(try await offered(book, postgres, logger) == [patron], "offer #\(index)")
                        let replica = apis[index % 2]
                        switch index % 3 {
                        case 0:
                            #expect(try await replica.call(.post, "/me/books/\(book)/accept", patron: patron).status == .ok)
                            #expect(try await replica.call(.post, "/me/books/\(book)/return", patron: patron).status == .ok)
                            outcomes[patron] = "loan"
                        case 1 where index == 1 || index == 97:
                            // Nobody answers: the offer expires, the patron dismisses the notice.
                            try await Task.sleep(for: .milliseconds(1100))
                            #expect(try await job.runOnce() == 1)
                            #expect(
                                try await replica.call(.get, "/me/books/\(book)", patron: patron).decode(BookStatus.self).state == .loanOfferExpired
                            )
                            #expect(try await replica.call(.post, "/me/books/\(book)/dismiss", patron: patron).status == .ok)
                            outcomes[patron] = "expired"
                        default:
                            #expect(try await replica.call(.post, "/me/books/\(book)/decline", patron: patron).status == .ok)
                            outcomes[patron] = "declined"
                        }
                        // The one who has just been served can no longer accept.
                        #expect(try await replica.call(.post, "/me/books/\(book)/accept", patron: patron).status == .conflict)
                        try await checkEveryRow(book, copies: 1, postgres, logger)
                    }
                    let served = queue.indices.filter { !(40..<50).contains($0) }
                    #expect(outcomes.count == 90 && outcomes.values.filter { $0 == "loan" }.count == served.filter { $0 % 3 == 0 }.count)
                    #expect(outcomes.values.filter { $0 == "expired" }.count == 2)
                    // Everyone is back to NONE: no row is left, the copy is free for the next borrower.
                    #expect(try await rowCount(book, postgres, logger) == 0)
                    #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: queue[0]).status == .created)
                }
            }
            group.cancelAll()
        }
    }

    /// Patrons waiting for `book`, first in line first.
    func waitingOrder(_ book: UUID, _ postgres: PostgresClient, _ logger: Logger) async throws -> [UUID] {
        let rows = try await postgres.query(
            "SELECT patron_id FROM patron_books WHERE book_id = \(book) AND state = 'waiting_for_loan' ORDER BY hold_placed_at, patron_id",
            logger: logger
        )
        return try await rows.decode(UUID.self).reduce(into: []) { $0.append($1) }
    }

    func offered(_ book: UUID, _ postgres: PostgresClient, _ logger: Logger) async throws -> [UUID] {
        let rows = try await postgres.query("SELECT patron_id FROM patron_books WHERE book_id = \(book) AND state = 'loan_offered'", logger: logger)
        return try await rows.decode(UUID.self).reduce(into: []) { $0.append($1) }
    }

    func rowCount(_ book: UUID, _ postgres: PostgresClient, _ logger: Logger) async throws -> Int {
        let rows = try await postgres.query("SELECT count(*)::int FROM patron_books WHERE book_id = \(book)", logger: logger)
        return try await rows.decode(Int.self).reduce(0) { $0 + $1 }
    }

    /// Every row of the book is a state of the machine with the fields that state needs, and the book is never
    /// promised to more patrons (loans plus offers) than it has copies, nor offered while a copy sits idle with a queue.
    func checkEveryRow(_ book: UUID, copies: Int, _ postgres: PostgresClient, _ logger: Logger) async throws {
        let rows = try await postgres.query(
            "SELECT state, hold_placed_at IS NOT NULL, offer_expires_at IS NOT NULL, due_at IS NOT NULL FROM patron_books WHERE book_id = \(book)",
            logger: logger
        )
        var promised = 0
        var waiting = 0
        for try await (name, placed, offer, due) in rows.decode((String, Bool, Bool, Bool).self) {
            let state = try #require(BookState(rawValue: name), "\(name) is a state of the machine")
            #expect(state != .none, "NONE is never stored")
            switch state {
            case .waitingForLoan:
                waiting += 1
                #expect(placed && !offer && !due)
            case .loanOffered:
                promised += 1
                #expect(offer && !due)
            case .notDownloaded, .downloadQueued, .downloading, .downloadFailed, .downloadCompleted, .opened:
                promised += 1
                #expect(due)
            default: break
            }
        }
        #expect(promised <= copies, "never more loans and offers than copies")
        #expect(waiting == 0 || promised == copies, "a free copy is never left idle while patrons wait")
    }

    @Test func myBooksShowsTitleAuthorsCoverAndThumbnailOnlyForBooksWithACover() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let (covered, bare) = (UUID(), UUID())
            try await api.license(covered, copies: 1)
            try await api.license(bare, copies: 1, hasCover: false)
            let patron = try await api.newPatron()
            #expect(try await api.call(.post, "/me/books/\(covered)/borrow", patron: patron).status == .created)
            #expect(try await api.call(.put, "/me/books/\(bare)/saved", patron: patron).status == .ok)
            let books = try #require(try await api.call(.get, "/me/books", patron: patron).json["books"] as? [[String: Any]])
            let byID = Dictionary(uniqueKeysWithValues: books.compactMap { book in (book["bookId"] as? String).map { ($0, book) } })
            let loan = try #require(byID[covered.uuidString.lowercased()])
            #expect(loan["title"] as? String == "Book" && loan["authors"] as? [String] == ["A. Writer"])
            #expect((loan["coverUrl"] as? String)?.hasSuffix("/books/\(covered.uuidString.lowercased())/cover") == true)
            #expect((loan["thumbnailUrl"] as? String)?.hasSuffix("/cover?size=thumbnail") == true)
            let saved = try #require(byID[bare.uuidString.lowercased()])
            #expect(saved["state"] as? String == "saved" && saved["coverUrl"] == nil && saved["thumbnailUrl"] == nil)
        }
    }

    /// DOWNLOAD QUEUED and DOWNLOADING have no expiry of their own: a download that never ends is recorded as failed
    /// and the loan expires anyway, so the copy reaches the next patron in line.
    @Test func aLoanWhoseDownloadNeverFinishedStillExpires() async throws {
        let (app, url) = try await app(["LOAN_PERIOD": "1s"])
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let (stuck, queued) = (UUID(), UUID())
            try await api.license(stuck, copies: 1)
            try await api.license(queued, copies: 1)
            let (owner, next) = (try await api.newPatron(), try await api.newPatron())
            for (book, event) in [(stuck, "download_started"), (queued, "download_queued")] {
                #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: owner).status == .created)
                #expect(try await api.call(.post, "/me/books/\(book)/events", patron: owner, json: #"{"event":"\#(event)"}"#).status == .ok)
                #expect(try await api.call(.post, "/me/books/\(book)/hold", patron: next).status == .created)
            }
            try await Task.sleep(for: .milliseconds(1200))
            let logger = Logger(label: "test")
            let postgres = PostgresClient(configuration: try DatabaseURL.configuration(url), backgroundLogger: logger)
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { await postgres.run() }
                let rules = CirculationRules(loanPeriod: 1, offerPeriod: 3600, publicURL: "")
                let job = ExpiryJob.forTests(postgres, rules: rules, logger: logger)
                let (first, second) = (try await job.runOnce(), try await job.runOnce())
                #expect(first == 2 && second == 0, "each loan expires once")
                for book in [stuck, queued] {
                    #expect(try await api.call(.get, "/me/books/\(book)", patron: owner).decode(BookStatus.self).state == .loanExpired)
                    #expect(try await api.call(.get, "/me/books/\(book)", patron: next).decode(BookStatus.self).state == .loanOffered)
                }
                group.cancelAll()
            }
        }
    }
}
