/// The transition table of the book-state machine. Pure: no I/O, no clock.
public enum BookMachine {
    /// The state reached from `state` by `event`, or `IllegalTransition`.
    public static func next(from state: BookState, on event: BookEvent) throws(IllegalTransition) -> BookState {
        guard let next = table[state]?[event] else { throw IllegalTransition(state: state, event: event) }
        return next
    }

    /// The events allowed in `state`, in a stable order.
    public static func allowedEvents(from state: BookState) -> [BookEvent] { allowed[state] ?? [] }

    /// Worked out once: every book of every shelf and circulation answer lists them.
    private static let allowed: [BookState: [BookEvent]] = table.mapValues { exits in BookEvent.allCases.filter { exits[$0] != nil } }

    /// True when `event` is a client report that the state already reflects (`download_completed` in DOWNLOAD
    /// COMPLETED, `opened` in OPENED): a second device, or the app after the server recorded the download itself.
    /// Such a repeat changes nothing and is not an error.
    public static func isRepeat(_ event: BookEvent, in state: BookState) -> Bool {
        BookEvent.clientReported.contains(event) && table.values.contains { $0[event] == state }
    }

    private static let downloadExits: [BookEvent: BookState] = [.returnLoan: .none, .loanExpired: .loanExpired]

    static let table: [BookState: [BookEvent: BookState]] = [
        .none: [.save: .saved, .hold: .waitingForLoan, .borrow: .notDownloaded],
        .saved: [.unsave: .none, .hold: .waitingForLoan, .borrow: .notDownloaded],
        .waitingForLoan: [.cancelHold: .none, .offer: .loanOffered, .suspend: .waitingForLoan, .resume: .waitingForLoan],
        .loanOffered: [.accept: .notDownloaded, .decline: .none, .offerExpired: .loanOfferExpired],
        .loanOfferExpired: [.dismiss: .none],
        .notDownloaded: downloadExits.merging([.downloadQueued: .downloadQueued, .downloadStarted: .downloading]) { $1 },
        .downloadQueued: [.downloadStarted: .downloading, .downloadCancelled: .notDownloaded, .downloadFailed: .downloadFailed],
        .downloading: [.downloadCompleted: .downloadCompleted, .downloadCancelled: .notDownloaded, .downloadFailed: .downloadFailed],
        .downloadFailed: downloadExits.merging([.downloadQueued: .downloadQueued, .downloadStarted: .downloading]) { $1 },
        .downloadCompleted: downloadExits.merging([.opened: .opened]) { $1 },
        .opened: downloadExits,
        .loanExpired: [.dismiss: .none],
    ]
}
