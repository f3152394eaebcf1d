import Foundation
import Hummingbird
import ServiceLifecycle
import ServiceSupport
import Shared

/// `/internal/...` routes for patron; every one needs the service token.
struct InternalController: Sendable {
    let books: BookPostgresRepository
    let shelfCopies: ShelfCopyPostgresRepository
    let shelves: PatronShelves
    let lists: BookListPostgresRepository
    let token: ServiceToken

    func add(to router: Router<CatalogRequestContext>) {
        let group = router.group().add(middleware: ServiceTokenMiddleware(token: token))
        group.put(.bookFigures(.key)) { request, context in
            let figures = try await JSONMessages.decode(CirculationFigures.self, from: request)
            guard figures.bookId == (try context.uuid("id")) else { throw Problem.badRequest("figures do not match the path") }
            try await books.applyFigures([figures], logger: context.logger)
            return Response(status: .noContent)
        }
        // Many books' figures at once: what patron's outbox sends (`OutboxBatch`).
        group.put(.figures) { request, context in
            let figures = try await JSONMessages.decode([CirculationFigures].self, from: request)
            guard figures.count <= 1_000 else { throw Problem.badRequest("at most 1,000 books' figures at once") }
            try await books.applyFigures(figures, logger: context.logger)
            return Response(status: .noContent)
        }
        // Patron's copy of a patron's shelf, for personalised feeds (`ShelfPublisher` on patron's side).
        group.put(.shelfCopy(.key)) { request, context in
            let copy = try await JSONMessages.decode(ShelfCopy.self, from: request)
            try await shelfCopies.store(copy, patronID: try context.uuid("patron"), logger: context.logger)
            return Response(status: .noContent)
        }
        // What the gateway needs to answer a patron's feed pages from the shared pages it holds (`ShelfSummary`): the
        // copy at least as new as the version the gateway heard (`X-Internal-Shelf-Version`), as a page would use.
        group.get(.shelfCopy(.key)) { request, context in
            let copy = try await shelves.shelf(patronID: try context.uuid("patron"), seen: request.shelfVersionSeen, logger: context.logger)
            let overlay = PatronOverlay(shelf: copy.shelf, version: copy.version)
            return try JSONMessages.response(ShelfSummary(version: copy.version, touched: overlay.touched))
        }
        // The shelf versions this replica heard announced, for a gateway that follows them (`ShelfAnnouncements`): at
        // once when there is news, else when some arrives or after `wait` seconds (20, at most 60). While announcements
        // may be missed (not listening, heartbeat late), a new epoch: the follower forgets what it keeps. A graceful
        // shutdown answers at once: the server waits for requests under way, and a wait held it up to 20 s.
        group.get(.shelfAnnouncements) { request, context in
            let memory = shelfCopies.memory
            let query = request.uri.queryParameters
            let epoch = query["epoch"].map(String.init)
            guard let after = Int64(query["after"].map(String.init) ?? "0"), after >= 0 else {
                throw Problem.badRequest("after must be a whole number")
            }
            let wait = min(60, max(0, Int(query["wait"].map(String.init) ?? "20") ?? 20))
            let deadline = ContinuousClock.now + .seconds(wait)
            while memory.isCurrent(), !memory.announcements.hasNews(epoch: epoch, after: after), ContinuousClock.now < deadline,
                !Task.isShuttingDownGracefully
            {
                // Twenty looks at a counter a second per follower; a change reaches the gateways within 50 ms.
                guard (try? await Task.sleep(for: .milliseconds(50))) != nil else { break }
            }
            let current = memory.isCurrent()
            if !current { memory.announcements.newEpoch() }
            var answer = memory.announcements.read(epoch: epoch, after: after)
            answer.current = current
            return try JSONMessages.response(answer)
        }
        // An account was deleted: its lists and shelf copy go too (idempotent; patron's outbox may send it twice).
        group.put(.patronErasure(.key)) { request, context in
            let patronID = try context.uuid("patron")
            guard try await JSONMessages.decode(PatronErasure.self, from: request).patronId == patronID else {
                throw Problem.badRequest("erasure does not match the path")
            }
            try await lists.deleteAll(owner: patronID, logger: context.logger)
            try await shelfCopies.erase(patronID: patronID, logger: context.logger)
            return Response(status: .noContent)
        }
        // The patron's own lists with their books, for their data export.
        group.get(.patronLists(.key)) { request, context in
            let patronID = try context.uuid("patron")
            var exported: [ExportedLists.List] = []
            for list in try await lists.lists(owner: patronID, logger: context.logger) {
                let books = try await lists.list(list.id, logger: context.logger)?.list.books ?? []
                exported.append(
                    ExportedLists.List(
                        id: list.id,
                        title: list.title,
                        description: list.description,
                        isPublic: list.isPublic,
                        books: books,
                        createdAt: list.createdAt,
                        updatedAt: list.updatedAt
                    )
                )
            }
            return try JSONMessages.response(ExportedLists(lists: exported))
        }
        group.get(.readingOrder(.key)) { request, context in
            let id = try context.uuid("id")
            guard let book = try await books.detail(id: id, logger: context.logger) else { throw Problem.notFound("No book \(id)") }
            return try JSONMessages.response((book.navigation?.readingOrder ?? []).map(\.href))
        }
    }
}
