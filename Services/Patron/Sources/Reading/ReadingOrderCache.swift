import Foundation
import Logging
import ServiceSupport
import Shared
import Synchronization

/// The reading order (spine hrefs) of each book, asked of catalog once and kept (at most `limit` books; past it
/// the cache starts again, which costs only a call to catalog per book).
final class ReadingOrderCache: Sendable {
    let catalog: InternalClient
    let limit = 10_000
    private let entries = Mutex<[UUID: [String]]>([:])

    init(catalog: InternalClient) { self.catalog = catalog }

    /// The hrefs of the book's reading order, or the 503 (with `Retry-After`) for a place that cannot be made without it.
    func requiredHrefs(of bookID: UUID, logger: Logger) async throws -> [String] {
        guard let hrefs = await hrefs(of: bookID, logger: logger) else {
            throw Problem(
                status: 503,
                slug: "catalog-unavailable",
                title: "Service unavailable",
                detail: "The book's reading order cannot be read right now; try again shortly",
                retryAfter: 5
            )
        }
        return hrefs
    }

    /// The hrefs of the book's reading order, in order; nil when catalog cannot be asked (validation is then skipped).
    func hrefs(of bookID: UUID, logger: Logger) async -> [String]? {
        if let cached = entries.withLock({ $0[bookID] }) { return cached }
        guard let list = try? await catalog.get(InternalRoute.readingOrder(bookID).path, as: [String].self, logger: logger)
        else { return nil }
        entries.withLock { entries in
            if entries.count >= limit { entries.removeAll() }
            entries[bookID] = list
        }
        return list
    }
}
