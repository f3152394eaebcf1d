import Foundation

/// Answer of `GET /internal/patrons/{id}/loans/{bookId}`: may this patron download this book now?
public struct LoanCheck: Codable, Sendable {
    public var active: Bool
    public var state: BookState

    public init(active: Bool, state: BookState) {
        self.active = active
        self.state = state
    }
}
