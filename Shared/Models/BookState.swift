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
