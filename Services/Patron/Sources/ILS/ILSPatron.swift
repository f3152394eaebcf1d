import Foundation

/// What the library's ILS says of a card and PIN: whether both hold, the patron's name, address and type, and why they
/// may not borrow (nil: they may). Read from a SIP2 patron information (64) or patron status (24) reply.
struct ILSPatron: Sendable, Equatable {
    var validPatron: Bool
    var validPIN: Bool
    var name: String?
    var email: String?
    /// The ILS's patron type (`PC`, Evergreen's and Sierra's extension), as the ILS names it.
    var patronType: String?
    /// Why the patron may take nothing new, in the ILS's words when it gave any (`AF`), else from the status flags.
    var blockReason: String?

    /// The 14 patron status flags' meanings (SIP2 2.00, "patron status"), in order. `Y` means the condition holds.
    static let statusFlags = [
        "borrowing privileges denied", "renewal privileges denied", "recall privileges denied", "hold privileges denied",
        "card reported lost", "too many items borrowed", "too many items overdue", "too many renewals",
        "too many claims of items returned", "too many items lost", "fines over the limit", "fees over the limit",
        "recall overdue", "too many items billed",
    ]
    /// The flags that stop borrowing: the others (renewals, recalls, claims) are about the library's shelves.
    static let blockingFlags: Set<Int> = [0, 3, 4, 5, 6, 9, 10, 11, 13]

    /// From a 64 or 24 reply (the patron status flags are the fixed part's first 14 characters).
    init(reply: SIP2Frame.Reply, today: Date = Date()) {
        validPatron = reply["BL"] == "Y"
        validPIN = reply["CQ"] == "Y"
        name = Self.present(reply["AE"])
        email = Self.present(reply["BE"])
        patronType = Self.present(reply["PC"])?.lowercased()
        let flags = Array(reply.fixed(0, 14))
        let raised = flags.indices.filter { flags[$0] == "Y" && Self.blockingFlags.contains($0) }.map { Self.statusFlags[$0] }
        var reason: String? = raised.isEmpty ? nil : raised.joined(separator: ", ")
        // `PA`, the card's expiry (3M extension, `YYYYMMDD`), when the ILS sends it and it has passed.
        if let expiry = reply["PA"], let date = Self.day(expiry), date < today { reason = "card expired" }
        if reason != nil, let message = Self.present(reply.all("AF").joined(separator: " ")) { reason = message }
        blockReason = reason.map { String($0.prefix(200)) }
    }

    init(validPatron: Bool, validPIN: Bool, name: String? = nil, email: String? = nil, patronType: String? = nil, blockReason: String? = nil) {
        self.validPatron = validPatron
        self.validPIN = validPIN
        self.name = name
        self.email = email
        self.patronType = patronType
        self.blockReason = blockReason
    }

    private static func present(_ value: String?) -> String? {
        guard let trimmed = value?.trimmingCharacters(in: .whitespaces), !trimmed.isEmpty else { return nil }
        return trimmed
    }

    private static func day(_ text: String) -> Date? {
        let digits = text.prefix(8)
        guard digits.count == 8, let year = Int(digits.prefix(4)), let month = Int(digits.dropFirst(4).prefix(2)),
            let day = Int(digits.suffix(2))
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        // The card is good through its last day.
        return calendar.date(from: DateComponents(year: year, month: month, day: day + 1))
    }
}
