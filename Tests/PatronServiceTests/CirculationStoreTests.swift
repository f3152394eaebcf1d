import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import Shared
import TestSupport
import Testing

@testable import PatronService

/// The book machine (`Circulation`) over each store: the same scenarios in memory (`InMemoryCirculationStore`, no
/// PostgreSQL) and against PostgreSQL (`CirculationPostgresRepository`, the store the service runs on). Concurrency is
/// PostgreSQL's to make correct, and `CirculationTests` tests it there.
@Suite struct CirculationStoreTests {
    enum Store: String, CaseIterable, CustomTestStringConvertible {
        case memory, postgres
        var testDescription: String { rawValue }
    }

    static let rules = CirculationRules(loanPeriod: 21 * 86_400, offerPeriod: 3 * 86_400, publicURL: "https://library.example")
    static let logger = Logger(label: "circulation-store-test")

    /// What a scenario needs: the machine, and books and patrons to run it on.
    struct Fixture: Sendable {
        var circulation: Circulation
        var addBook: @Sendable (_ copies: Int) async throws -> UUID
        var addPatron: @Sendable () async throws -> UUID
        /// The kinds of notification a patron was left, oldest first.
        var notified: @Sendable (UUID) async throws -> [NotificationKind]

        func apply(_ event: BookEvent, _ patron: UUID, _ book: UUID) async throws -> Circulation.Outcome {
            try await circulation.apply(event, patronID: patron, bookID: book, logger: CirculationStoreTests.logger)
        }

        func status(_ patron: UUID, _ book: UUID) async throws -> BookStatus {
            try await circulation.store.transaction(logger: CirculationStoreTests.logger) { try await $0.status(patronID: patron, bookID: book) }
        }
    }

    /// Runs `scenario` over `store`, with loan and hold limits of `limit` each.
    func run(_ store: Store, limit: Int = 10, _ scenario: @Sendable (Fixture) async throws -> Void) async throws {
        switch store {
        case .memory:
            let memory = InMemoryCirculationStore(rules: Self.rules)
            try await scenario(
                Fixture(
                    circulation: Circulation(store: memory, rules: Self.rules),
                    addBook: { copies in
                        let id = UUID()
                        memory.addBook(id, copies: copies)
                        return id
                    },
                    addPatron: {
                        let id = UUID()
                        memory.addPatron(id, loans: limit, holds: limit)
                        return id
                    },
                    notified: { memory.notified($0) }
                )
            )
        case .postgres:
            let url = try await TestDatabase.create(prefix: "store")
            let config = TestConfig.base([
                "PATRON_DATABASE_URL": url, "EXPIRY_INTERVAL": "3600", "LOAN_LIMIT": "\(limit)", "HOLD_LIMIT": "\(limit)",
            ])
            try await buildPatronApplication(config: config).testRouter { client in
                let api = PatronTestClient(client: client)
                try await TestDatabase.withClient(url) { postgres, _ in
                    let repository = CirculationPostgresRepository(client: postgres, rules: Self.rules)
                    try await scenario(
                        Fixture(
                            circulation: Circulation(store: repository, rules: Self.rules),
                            addBook: { copies in
                                let id = UUID()
                                try await api.license(id, copies: copies)
                                return id
                            },
                            addPatron: { try await api.newPatron() },
                            notified: { patron in
                                try await NotificationPostgresRepository(client: postgres).list(patronID: patron, logger: Self.logger)
                                    .sorted { $0.createdAt < $1.createdAt }.map(\.kind)
                            }
                        )
                    )
                }
            }
        }
    }

    @Test(arguments: Store.allCases) func copiesAreNeverOverLentAndARepeatChangesNothing(store: Store) async throws {
        try await run(store) { fixture in
            let book = try await fixture.addBook(1)
            let (first, second) = (try await fixture.addPatron(), try await fixture.addPatron())
            #expect(try await fixture.apply(.borrow, first, book).status.state == .notDownloaded)
            let again = try await fixture.apply(.borrow, first, book)
            #expect(!again.changed && again.status.state == .notDownloaded)
            await #expect(throws: CirculationError.noCopiesAvailable(book, publicURL: Self.rules.publicURL)) {
                try await fixture.apply(.borrow, second, book)
            }
            #expect(try await fixture.status(second, book).state == .none, "a refused borrow writes nothing")
        }
    }

    @Test(arguments: Store.allCases) func theLoanAndHoldLimitsRefuseAndLeaveEverythingAsItWas(store: Store) async throws {
        try await run(store, limit: 1) { fixture in
            let (lent, other, third) = (try await fixture.addBook(1), try await fixture.addBook(1), try await fixture.addBook(1))
            let (patron, owner, keeper) = (try await fixture.addPatron(), try await fixture.addPatron(), try await fixture.addPatron())
            _ = try await fixture.apply(.borrow, patron, lent)
            await #expect(throws: CirculationError.loanLimit(1)) { try await fixture.apply(.borrow, patron, other) }
            #expect(try await fixture.status(patron, other).state == .none)
            _ = try await fixture.apply(.borrow, owner, other)
            _ = try await fixture.apply(.borrow, keeper, third)
            #expect(try await fixture.apply(.hold, patron, other).status.state == .waitingForLoan)
            await #expect(throws: CirculationError.holdLimit(1)) { try await fixture.apply(.hold, patron, third) }
            #expect(try await fixture.status(patron, third).state == .none)
        }
    }

    @Test(arguments: Store.allCases) func theQueueAdvancesThroughAReturnADeclineAndAnExpiredOffer(store: Store) async throws {
        try await run(store) { fixture in
            let book = try await fixture.addBook(1)
            var patrons: [UUID] = []
            for _ in 0..<4 { patrons.append(try await fixture.addPatron()) }
            let (owner, first, second, third) = (patrons[0], patrons[1], patrons[2], patrons[3])
            _ = try await fixture.apply(.borrow, owner, book)
            for patron in [first, second, third] { _ = try await fixture.apply(.hold, patron, book) }
            #expect(try await fixture.status(third, book).holdPosition == 3)

            _ = try await fixture.apply(.returnLoan, owner, book)
            #expect(try await fixture.status(first, book).state == .loanOffered, "the copy goes to the patron who waited longest")
            #expect(try await fixture.notified(first) == [.loanOffered], "and they are told")
            #expect(try await fixture.notified(second).isEmpty)
            #expect(try await fixture.status(second, book).holdPosition == 1)

            _ = try await fixture.apply(.decline, first, book)
            #expect(try await fixture.status(first, book).state == .none)
            #expect(try await fixture.status(second, book).state == .loanOffered)

            let now = Date()
            let logger = Self.logger
            #expect(try await fixture.circulation.expireOffer(patronID: second, bookID: book, dueBy: now, logger: logger) == nil, "not due yet")
            let expired = try await fixture.circulation.expireOffer(
                patronID: second,
                bookID: book,
                dueBy: now.addingTimeInterval(Self.rules.offerPeriod + 3600),
                logger: logger
            )
            #expect(expired?.status.state == .loanOfferExpired)
            #expect(try await fixture.notified(second) == [.loanOffered, .offerExpired])
            #expect(try await fixture.status(third, book).state == .loanOffered)
            #expect(try await fixture.apply(.accept, third, book).status.state == .notDownloaded)
            let ended = try await fixture.circulation.expireLoan(
                patronID: third,
                bookID: book,
                dueBy: now.addingTimeInterval(Self.rules.loanPeriod + 7200),
                logger: logger
            )
            #expect(ended?.status.state == .loanExpired)
            #expect(try await fixture.notified(third) == [.loanOffered, .loanExpired])
        }
    }

    @Test(arguments: Store.allCases) func aLoanIsRenewedOnlyWhileNobodyWaitsAndASuspendedHoldIsPassedOver(store: Store) async throws {
        try await run(store) { fixture in
            let book = try await fixture.addBook(1)
            var patrons: [UUID] = []
            for _ in 0..<3 { patrons.append(try await fixture.addPatron()) }
            let (owner, away, next) = (patrons[0], patrons[1], patrons[2])
            let logger = Self.logger
            _ = try await fixture.apply(.borrow, owner, book)
            #expect(try await fixture.circulation.renew(patronID: owner, bookID: book, logger: logger).state == .notDownloaded)
            _ = try await fixture.apply(.hold, away, book)
            await #expect(throws: CirculationError.holdsWaiting) {
                try await fixture.circulation.renew(patronID: owner, bookID: book, logger: logger)
            }
            await #expect(throws: CirculationError.notOnLoan(.waitingForLoan)) {
                try await fixture.circulation.renew(patronID: away, bookID: book, logger: logger)
            }

            let until = Date().addingTimeInterval(7 * 86_400)
            #expect(try await fixture.circulation.suspendHold(until: until, patronID: away, bookID: book, logger: logger).suspendedUntil != nil)
            _ = try await fixture.apply(.hold, next, book)
            _ = try await fixture.apply(.returnLoan, owner, book)
            #expect(try await fixture.status(next, book).state == .loanOffered, "a suspended hold is passed over")
            #expect(try await fixture.status(away, book).state == .waitingForLoan, "and keeps its place")
            #expect(try await fixture.circulation.suspendHold(until: nil, patronID: away, bookID: book, logger: logger).state == .waitingForLoan)
            _ = try await fixture.apply(.decline, next, book)
            #expect(try await fixture.status(away, book).state == .loanOffered)
            await #expect(throws: CirculationError.self) {
                try await fixture.circulation.suspendHold(until: until, patronID: owner, bookID: book, logger: logger)
            }
        }
    }
}
