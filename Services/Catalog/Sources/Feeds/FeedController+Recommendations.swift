import Foundation
import Hummingbird
import Logging
import ServiceSupport
import Shared

/// "Recommended for you": `/opds/recommended`, and the first group of the signed-in grouped feed.
extension FeedController {
    static let recommendedPath = PublicRoute.recommended.path

    /// Popular books, for anonymous visitors and for patrons there is nothing to go on for yet.
    static let popular = Lane(
        slug: "recommended",
        title: "Popular",
        condition: "true",
        defaultSort: .popularity,
        defaultOrder: .desc,
        customPath: recommendedPath
    )

    /// The title of the recommendations for this visitor.
    func recommendationsTitle(_ personal: PatronOverlay) -> String { personal.shelf == nil ? "Popular" : "Recommended for you" }

    func recommended(request: Request, context: CatalogRequestContext, personal: PatronOverlay) async throws -> StoredResponse {
        let size = min(50, max(1, request.uri.queryParameters.get("size").flatMap { Int($0) } ?? 20))
        var feed = Feed(
            id: publicURL + Self.recommendedPath,
            title: recommendationsTitle(personal),
            kind: .acquisition,
            links: baseLinks(self: Self.recommendedPath, type: MediaType.acquisition)
        )
        let books = try await recommendedBooks(patronID: context.patronID, personal: personal, size: size, logger: context.logger)
        feed.entries = entries(books, personal)
        return try responder.render(feed, request: request, for: personal)
    }

    /// For a signed-in patron, books like those they liked (`FeedPostgresRepository.recommended`), never one they liked, had, have
    /// on their shelf or ignore; popular books for anyone else, or when the patron's taste says nothing yet.
    func recommendedBooks(patronID: UUID?, personal: PatronOverlay, size: Int, logger: Logger) async throws -> [BookEntry] {
        var excluding = personal.hidden
        if let patronID, let taste = await discovery.taste(of: patronID, logger: logger) {
            excluding += taste.liked + taste.had + (personal.shelf?.books.map(\.bookId) ?? [])
            let books = try await feeds.recommended(
                liked: taste.liked,
                coBorrowed: taste.coBorrowed,
                excluding: excluding,
                size: size,
                logger: logger
            )
            if !books.isEmpty { return books }
        }
        let page = try await feeds.lane(
            Self.popular,
            sort: .popularity,
            order: .desc,
            availableOnly: false,
            size: size,
            after: nil,
            hidden: excluding,
            logger: logger
        )
        return page.books
    }
}
