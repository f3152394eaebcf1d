import Foundation

/// An RFC 9457 problem document, the body of every error response (`application/problem+json`).
///
/// `type` is a URI naming the kind of problem (`https://bookmobile.dev/problems/<slug>` or `about:blank`).
/// The optional members carry machine-readable context for some problems (the book state and the events it
/// allows for an illegal transition, the limit for a limit breach, the link to follow for a missing copy).
public struct Problem: Codable, Sendable, Equatable, Error {
    public var type: String
    public var title: String
    public var status: Int
    public var detail: String?
    public var state: String?
    public var allowedEvents: [String]?
    public var limit: Int?
    public var links: [ProblemLink]?
    public var retryAfter: Int?
    /// For a throttled sign-in: which limit (`login`, `login-at-address`, `address`) and until when (ISO 8601).
    public var throttled: String?
    public var throttledUntil: String?

    public init(
        status: Int,
        slug: String?,
        title: String,
        detail: String? = nil,
        state: String? = nil,
        allowedEvents: [String]? = nil,
        limit: Int? = nil,
        links: [ProblemLink]? = nil,
        retryAfter: Int? = nil,
        throttled: String? = nil,
        throttledUntil: String? = nil
    ) {
        self.type = slug.map { Problem.typeBase + $0 } ?? "about:blank"
        self.title = title
        self.status = status
        self.detail = detail
        self.state = state
        self.allowedEvents = allowedEvents
        self.limit = limit
        self.links = links
        self.retryAfter = retryAfter
        self.throttled = throttled
        self.throttledUntil = throttledUntil
    }

    public static let typeBase = "https://bookmobile.dev/problems/"
    public static let mediaType = MediaType.problem

    /// The slug of `type` (`no-copies-available`), or nil for `about:blank`.
    public var slug: String? { type.hasPrefix(Problem.typeBase) ? String(type.dropFirst(Problem.typeBase.count)) : nil }

    /// A failure of the server's own: says nothing about internals; the request id finds it in the logs.
    public static let internalError = Problem(
        status: 500,
        slug: "internal-error",
        title: "Internal server error",
        detail: "The server failed; the request id identifies it in the logs."
    )

    public static func badRequest(_ detail: String) -> Problem { Problem(status: 400, slug: "bad-request", title: "Bad request", detail: detail) }
    public static func notFound(_ detail: String) -> Problem { Problem(status: 404, slug: "not-found", title: "Not found", detail: detail) }
    public static func unauthorized(_ detail: String) -> Problem { Problem(status: 401, slug: "unauthorized", title: "Unauthorized", detail: detail) }
    public static func forbidden(_ detail: String) -> Problem { Problem(status: 403, slug: "forbidden", title: "Forbidden", detail: detail) }
    public static func conflict(_ slug: String, _ detail: String) -> Problem { Problem(status: 409, slug: slug, title: "Conflict", detail: detail) }
    public static func tooLarge(_ detail: String) -> Problem {
        Problem(status: 413, slug: "payload-too-large", title: "Payload too large", detail: detail)
    }
}
