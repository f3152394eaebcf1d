/// A patron's relation to one book: exactly one of the twelve states of the product notes.
public enum BookState: String, Codable, Sendable, CaseIterable {
    case none
    case saved
    case waitingForLoan = "waiting_for_loan"
    case loanOffered = "loan_offered"
    case loanOfferExpired = "loan_offer_expired"
    case notDownloaded = "not_downloaded"
    case downloadQueued = "download_queued"
    case downloading
    case downloadFailed = "download_failed"
    case downloadCompleted = "download_completed"
    case opened
    case loanExpired = "loan_expired"

    /// States in which the patron holds a copy on loan.
    public static let onLoan: Set<BookState> = [.notDownloaded, .downloadQueued, .downloading, .downloadFailed, .downloadCompleted, .opened]

    /// True while the patron holds a copy (on loan).
    public var isOnLoan: Bool { BookState.onLoan.contains(self) }

    /// True while the state occupies a copy of the book (a loan or a pending offer).
    public var occupiesCopy: Bool { isOnLoan || self == .loanOffered }
}

/// What can happen to a patron's book: patron actions, server-side circulation events and client-reported
/// download events.
public enum BookEvent: String, Codable, Sendable, CaseIterable {
    case save, unsave, hold, borrow, cancelHold = "cancel_hold", offer, accept, decline, offerExpired = "offer_expired"
    case dismiss, returnLoan = "return", loanExpired = "loan_expired"
    /// A hold's suspension (until a date) and its end: WAITING FOR LOAN stays, keeping its place in the queue.
    case suspend, resume
    case downloadQueued = "download_queued", downloadStarted = "download_started", downloadFailed = "download_failed"
    case downloadCompleted = "download_completed", downloadCancelled = "download_cancelled", opened

    /// The events a client may report through `POST /me/books/{id}/events`.
    public static let clientReported: Set<BookEvent> = [
        .downloadQueued, .downloadStarted, .downloadFailed, .downloadCompleted, .downloadCancelled, .opened,
    ]
}

/// Refusal of an event that the current state does not allow.
public struct IllegalTransition: Error, Equatable, Sendable {
    public let state: BookState
    public let event: BookEvent
    public init(state: BookState, event: BookEvent) {
        self.state = state
        self.event = event
    }
    public var allowedEvents: [BookEvent] { BookMachine.allowedEvents(from: state) }
}

/// The transition table of the book-state machine. Pure: no I/O, no clock.
public enum BookMachine {
    /// The state reached from `state` by `event`, or `IllegalTransition`.
    public static func next(from state: BookState, on event: BookEvent) throws(IllegalTransition) -> BookState {
        guard let next = table[state]?[event] else { throw IllegalTransition(state: state, event: event) }
        return next
    }

    /// The events allowed in `state`, in a stable order.
    public static func allowedEvents(from state: BookState) -> [BookEvent] {
        BookEvent.allCases.filter { table[state]?[$0] != nil }
    }

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
