import Foundation
import Logging
import ServiceSupport
import Shared

/// What patron knows that discovery needs (co-borrowed books, a patron's taste), asked over HTTP and remembered for
/// `lifetime`: these change slowly, and a page must not wait on patron each time. When patron cannot answer, the
/// page is shown without them.
struct PatronDiscovery: Sendable {
    let patron: InternalClient
    let coBorrowedAnswers: ExpiringAnswers<UUID, [UUID]>
    let tasteAnswers: ExpiringAnswers<UUID, PatronTaste>

    init(patron: InternalClient, lifetime: TimeInterval = 300) {
        self.patron = patron
        coBorrowedAnswers = ExpiringAnswers(lifetime: lifetime, limit: 20_000)
        tasteAnswers = ExpiringAnswers(lifetime: lifetime, limit: 20_000)
    }

    /// Books that at least three of the book's borrowers also borrowed, most shared first.
    func coBorrowed(with bookID: UUID, logger: Logger) async -> [UUID] {
        if let known = coBorrowedAnswers[bookID] { return known }
        do {
            let books = try await patron.get(InternalRoute.coBorrowed(bookID).path, as: CoBorrowedBooks.self, logger: logger).books
            coBorrowedAnswers.remember(books, for: bookID)
            return books
        } catch {
            logger.warning("Co-borrowed books not read from patron", metadata: ["error": "\(String(reflecting: error))"])
            return []
        }
    }

    /// The patron's liked, had and co-borrowed books; nil when patron cannot say.
    func taste(of patronID: UUID, logger: Logger) async -> PatronTaste? {
        if let known = tasteAnswers[patronID] { return known }
        do {
            let taste = try await patron.get(InternalRoute.taste(patronID).path, as: PatronTaste.self, logger: logger)
            tasteAnswers.remember(taste, for: patronID)
            return taste
        } catch {
            logger.warning("Taste not read from patron", metadata: ["error": "\(String(reflecting: error))"])
            return nil
        }
    }
}
