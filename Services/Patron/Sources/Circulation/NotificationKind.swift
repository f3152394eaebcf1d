import Shared

/// What a notification tells the patron.
enum NotificationKind: String, Codable, Sendable {
    case loanOffered = "loan_offered"
    case offerExpiring = "offer_expiring"
    case loanDueSoon = "loan_due_soon"
    case loanExpired = "loan_expired"
    case offerExpired = "offer_expired"
    /// A hold the patron suspended is back in the queue (its suspension's date came).
    case holdResumed = "hold_resumed"
    /// A book the patron asked the library to buy has arrived (a purchase suggestion).
    case suggestionArrived = "suggestion_arrived"

    /// The notification an event leaves behind, if any (offers are recorded when the queue advances).
    init?(after event: BookEvent) {
        switch event {
        case .loanExpired: self = .loanExpired
        case .offerExpired: self = .offerExpired
        default: return nil
        }
    }
}
