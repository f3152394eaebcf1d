import Foundation
import Shared
import Testing

@testable import PatronService

/// The rules of circulation in memory: what each event does to a book from what the change's locks read, without
/// PostgreSQL (`CirculationTests` carries the same rules out against it, concurrency included).
@Suite struct CirculationDecisionTests {
    let rules = CirculationRules(loanPeriod: 21 * 86_400, offerPeriod: 3 * 86_400, publicURL: "https://library.example")
    let book = UUID()
    let limits = (loans: 5, holds: 3)

    func license(copies: Int = 2, openAccess: Bool = false, withdrawn: Bool = false) -> LicenseRow {
        .init(copies: copies, openAccess: openAccess, withdrawn: withdrawn, title: "A", authors: [], hasCover: true)
    }

    func decide(_ event: BookEvent, in state: BookState, _ license: LicenseRow? = nil) throws -> CirculationDecision {
        try CirculationDecision.decide(event, in: state, license: license ?? self.license(), bookID: book, limits: limits, rules: rules)
    }

    @Test func aBorrowIsCheckedAgainstTheLoanLimitAndTheCopiesUnlessOpenAccess() throws {
        #expect(try decide(.borrow, in: .none) == .change(.init(next: .notDownloaded, loanLimit: 5, copies: 2)))
        #expect(try decide(.borrow, in: .saved, license(openAccess: true)) == .change(.init(next: .notDownloaded, loanLimit: 5)))
        #expect(try decide(.accept, in: .loanOffered) == .change(.init(next: .notDownloaded, loanLimit: 5)), "an offer's copy is the patron's")
    }

    @Test func repeatsChangeNothing() throws {
        for state in BookState.onLoan { #expect(try decide(.borrow, in: state) == .unchanged) }
        #expect(try decide(.save, in: .saved) == .unchanged)
        #expect(try decide(.unsave, in: .none) == .unchanged)
        #expect(try decide(.downloadCompleted, in: .downloadCompleted) == .unchanged, "a second device's report")
    }

    @Test func aHoldIsCountedAgainstTheHoldLimitAndMayFindAFreeCopy() throws {
        #expect(try decide(.hold, in: .none) == .change(.init(next: .waitingForLoan, holdLimit: 3, promotesHolds: true)))
        #expect(throws: CirculationError.openAccess) { try decide(.hold, in: .none, license(openAccess: true)) }
    }

    @Test func aWithdrawnBookCanBeNeitherBorrowedNorHeldButCanBeReturned() throws {
        let withdrawn = license(withdrawn: true)
        #expect(throws: CirculationError.unknownBook(book)) { try decide(.borrow, in: .none, withdrawn) }
        #expect(throws: CirculationError.unknownBook(book)) { try decide(.hold, in: .none, withdrawn) }
        #expect(try decide(.returnLoan, in: .opened, withdrawn) == .change(.init(next: .none, promotesHolds: true)))
    }

    @Test func everyEventThatCanFreeACopyMovesTheQueue() throws {
        #expect(try decide(.returnLoan, in: .downloadCompleted) == .change(.init(next: .none, promotesHolds: true)))
        #expect(
            try decide(.loanExpired, in: .notDownloaded)
                == .change(.init(next: .loanExpired, promotesHolds: true, notification: .loanExpired))
        )
        #expect(try decide(.decline, in: .loanOffered) == .change(.init(next: .none, promotesHolds: true)))
        #expect(
            try decide(.offerExpired, in: .loanOffered)
                == .change(.init(next: .loanOfferExpired, promotesHolds: true, notification: .offerExpired))
        )
        #expect(try decide(.cancelHold, in: .waitingForLoan) == .change(.init(next: .none, promotesHolds: true)))
        #expect(try decide(.dismiss, in: .loanExpired) == .change(.init(next: .none)), "nothing to free")
    }

    @Test func savingIsCountedAgainstTheSavedLimit() throws {
        #expect(try decide(.save, in: .none) == .change(.init(next: .saved, savedLimit: rules.savedLimit)))
    }

    @Test func anIllegalEventIsRefusedWithTheStateItMet() throws {
        #expect(throws: CirculationError.illegal(IllegalTransition(state: .none, event: .accept))) { try decide(.accept, in: .none) }
        #expect(throws: CirculationError.illegal(IllegalTransition(state: .waitingForLoan, event: .borrow))) {
            try decide(.borrow, in: .waitingForLoan)
        }
    }
}
