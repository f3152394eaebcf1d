import Foundation

/// Circulation periods and limits, from configuration.
struct CirculationRules: Sendable {
    var loanPeriod: TimeInterval
    var offerPeriod: TimeInterval
    var publicURL: String
    /// The most books a patron may keep saved, and ignored (each list is sent whole to catalog with the shelf).
    var savedLimit = 500
    var ignoredLimit = 500

    /// A reader-facing estimate of the wait for hold `position` on a book with `copies` copies:
    /// each round of `copies` patrons ahead takes about one loan period, and a suspended hold waits at least until its
    /// suspension ends (`notBefore` seconds).
    func estimatedWait(position: Int, copies: Int, notBefore: TimeInterval = 0) -> (seconds: TimeInterval, text: String) {
        let rounds = Double((position - 1) / max(copies, 1) + 1)
        let seconds = max(rounds * loanPeriod, notBefore)
        return (seconds, Self.describe(seconds))
    }

    static func describe(_ seconds: TimeInterval) -> String {
        switch seconds {
        case ..<3600: "about \(max(1, Int((seconds / 60).rounded()))) minutes"
        case ..<(2 * 86_400): "about \(max(1, Int((seconds / 3600).rounded()))) hours"
        case ..<(14 * 86_400): "about \(Int((seconds / 86_400).rounded())) days"
        default: "about \(Int((seconds / (7 * 86_400)).rounded())) weeks"
        }
    }
}
