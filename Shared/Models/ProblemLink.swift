import Foundation

/// A link carried by a problem document, e.g. the hold link of `no-copies-available`.
public struct ProblemLink: Codable, Sendable, Equatable {
    public var rel: String
    public var href: String
    public var method: String?

    public init(rel: String, href: String, method: String? = nil) {
        self.rel = rel
        self.href = href
        self.method = method
    }
}
