/// What can happen to a patron's book: patron actions, server-side circulation events and client-reported
/// download events.
public enum BookEvent: String, Codable, Sendable, CaseIterable {
    case save, unsave, hold, borrow
    case cancelHold = "cancel_hold"
    case offer, accept, decline
    case offerExpired = "offer_expired"
    case dismiss
    case returnLoan = "return"
    case loanExpired = "loan_expired"
    /// A hold's suspension (until a date) and its end: WAITING FOR LOAN stays, keeping its place in the queue.
    case suspend, resume
    case downloadQueued = "download_queued"
    case downloadStarted = "download_started"
    case downloadFailed = "download_failed"
    case downloadCompleted = "download_completed"
    case downloadCancelled = "download_cancelled"
    case opened

    /// The events a client may report through `POST /me/books/{id}/events`.
    public static let clientReported: Set<BookEvent> = [
        .downloadQueued, .downloadStarted, .downloadFailed, .downloadCompleted, .downloadCancelled, .opened,
    ]
}
