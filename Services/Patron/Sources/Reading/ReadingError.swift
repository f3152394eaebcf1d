import ServiceSupport
import Shared

/// Why a reading-data request was refused.
enum ReadingError: ProblemConvertible, Equatable {
    /// The patron keeps as many bookmarks as `BOOKMARK_LIMIT` allows.
    case bookmarkLimit(Int)

    var problem: Problem {
        switch self {
        case .bookmarkLimit(let limit):
            Problem(
                status: 403,
                slug: "bookmark-limit-reached",
                title: "Forbidden",
                detail: "You may keep at most \(limit) bookmarks; delete some to add more",
                limit: limit
            )
        }
    }
}
