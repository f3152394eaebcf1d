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
