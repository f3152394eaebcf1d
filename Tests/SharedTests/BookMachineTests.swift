import Shared
import Testing

/// The book-state machine: every state × every event, against the product notes' table written out by hand.
@Suite struct BookMachineTests {
    static let expected: [BookState: [BookEvent: BookState]] = [
        .none: [.save: .saved, .hold: .waitingForLoan, .borrow: .notDownloaded],
        .saved: [.unsave: .none, .hold: .waitingForLoan, .borrow: .notDownloaded],
        // Suspension is a property of WAITING FOR LOAN (issue 18): its two events keep the state.
        .waitingForLoan: [.cancelHold: .none, .offer: .loanOffered, .suspend: .waitingForLoan, .resume: .waitingForLoan],
        .loanOffered: [.accept: .notDownloaded, .decline: .none, .offerExpired: .loanOfferExpired],
        .loanOfferExpired: [.dismiss: .none],
        .notDownloaded: [.downloadQueued: .downloadQueued, .downloadStarted: .downloading, .returnLoan: .none, .loanExpired: .loanExpired],
        .downloadQueued: [.downloadStarted: .downloading, .downloadCancelled: .notDownloaded, .downloadFailed: .downloadFailed],
        .downloading: [.downloadCompleted: .downloadCompleted, .downloadCancelled: .notDownloaded, .downloadFailed: .downloadFailed],
        .downloadFailed: [.downloadQueued: .downloadQueued, .downloadStarted: .downloading, .returnLoan: .none, .loanExpired: .loanExpired],
        .downloadCompleted: [.opened: .opened, .returnLoan: .none, .loanExpired: .loanExpired],
        .opened: [.returnLoan: .none, .loanExpired: .loanExpired],
        .loanExpired: [.dismiss: .none],
    ]

    @Test(arguments: BookState.allCases)
    func everyEventFromEveryStateIsAllowedExactlyAsTheProductNotesSay(state: BookState) {
        for event in BookEvent.allCases {
            if let target = Self.expected[state]?[event] {
                #expect((try? BookMachine.next(from: state, on: event)) == target)
            } else {
                #expect(throws: IllegalTransition(state: state, event: event)) { try BookMachine.next(from: state, on: event) }
            }
        }
        #expect(Set(BookMachine.allowedEvents(from: state)) == Set(Self.expected[state]!.keys))
    }

    @Test func refusalNamesTheStateAndTheAllowedEvents() {
        do {
            _ = try BookMachine.next(from: .waitingForLoan, on: .borrow)
            Issue.record("borrow while waiting must be refused")
        } catch {
            #expect(error.state == .waitingForLoan)
            #expect(Set(error.allowedEvents) == [.cancelHold, .offer, .suspend, .resume])
        }
    }

    @Test func aClientReportTheStateAlreadyReflectsIsARepeatAndNothingElseIs() {
        #expect(BookMachine.isRepeat(.downloadCompleted, in: .downloadCompleted))
        #expect(BookMachine.isRepeat(.opened, in: .opened))
        #expect(BookMachine.isRepeat(.downloadStarted, in: .downloading))
        #expect(BookMachine.isRepeat(.downloadFailed, in: .downloadFailed))
        // Out of order, not a repeat: still refused.
        #expect(!BookMachine.isRepeat(.downloadCompleted, in: .opened))
        #expect(!BookMachine.isRepeat(.downloadStarted, in: .downloadCompleted))
        // Circulation events are never repeats: a second return or borrow means what it says.
        #expect(!BookMachine.isRepeat(.returnLoan, in: .none))
        #expect(!BookMachine.isRepeat(.hold, in: .waitingForLoan))
    }

    @Test func copiesAreOccupiedByLoansAndOffersOnly() {
        let occupying = Set(BookState.allCases.filter(\.occupiesCopy))
        #expect(occupying == [.loanOffered, .notDownloaded, .downloadQueued, .downloading, .downloadFailed, .downloadCompleted, .opened])
    }
}
