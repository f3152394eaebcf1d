import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// `/opds`, `/opds/groups`, `/opds/lanes/{lane}`, `/opds/search` and `/opds/books/{id}`: OPDS 1.2 Atom by default,
/// OPDS 2.0 for `Accept: application/opds+json`; personalised for a signed-in patron from catalog's copy of their shelf
/// (`PatronOverlay`), without a call to patron.
struct FeedController: Sendable {
    static let groupSize = 10

    let feeds: FeedPostgresRepository
    let shelves: PatronShelves
    let discovery: PatronDiscovery
    let lists: BookListPostgresRepository
    let arrangement: LaneArrangementPostgresRepository
    let publicURL: String
    let pages: FeedPageCache
    let responder: FeedResponder

    init(
        feeds: FeedPostgresRepository,
        shelves: PatronShelves,
        discovery: PatronDiscovery,
        lists: BookListPostgresRepository,
        arrangement: LaneArrangementPostgresRepository,
        publicURL: String,
        cache: ResponseCache,
        personalCache: ResponseCache
    ) {
        self.feeds = feeds
        self.shelves = shelves
        self.discovery = discovery
        self.lists = lists
        self.arrangement = arrangement
        self.publicURL = publicURL
        self.pages = FeedPageCache(shelves: shelves, cache: cache, personalCache: personalCache)
        self.responder = FeedResponder(publicURL: publicURL)
    }

    func add(to router: Router<CatalogRequestContext>) {
        router.get(.catalogRoot, use: pages.serve(root, alwaysPersonal: true))
        // Personal for a signed-in patron: the first group is their recommendations.
        router.get(.groups, use: pages.serve(groups, alwaysPersonal: true))
        router.get(.recommended, use: pages.serve(recommended, alwaysPersonal: true))
        router.get(.lane(.key), use: pages.serve(lane))
        router.get(.series(.key), use: pages.serve(series))
        router.get(.author(.key), use: pages.serve(author))
        router.get(.search, use: pages.serve(search))
        router.get(.entry(.key), use: pages.serve(book))
        router.get(.related(.key), use: pages.serve(related))
        router.group(context: SignedInRequestContext.self).get(.shelfFeed, use: shelf)
        router.get(.listFeed(.key), use: listFeed)
    }

    /// The feed entries of `books` for the patron: their state on each, and none a teen's or a child's card does not
    /// fit (lanes and searches leave those out in their statements; every other listing is filtered here).
    func entries(_ books: [BookEntry], _ personal: PatronOverlay) -> [Entry] {
        let views = personal.views
        let shown = personal.limit.map { limit in books.filter { limit.fits($0.audience) } } ?? books
        return shown.map { Entry(book: $0, view: views[$0.id], publicURL: publicURL) }
    }

    func root(request: Request, context: CatalogRequestContext, personal: PatronOverlay) async throws -> StoredResponse {
        var feed = Feed(
            id: PublicRoute.catalogRoot.url(publicURL),
            title: "Bookmobile",
            kind: .navigation,
            links: baseLinks(self: PublicRoute.catalogRoot.path, type: MediaType.navigation)
        )
        feed.links.append(
            Feed.Link(
                rel: "http://opds-spec.org/shelf",
                href: PublicRoute.shelfFeed.url(publicURL),
                type: MediaType.acquisition,
                title: "My books",
                count: personal.shelf?.waitingForAction
            )
        )
        feed.navigation.append(
            Feed.Link(
                rel: "subsection",
                href: publicURL + Self.recommendedPath,
                type: MediaType.acquisition,
                title: recommendationsTitle(personal)
            )
        )
        feed.navigation.append(
            Feed.Link(rel: "subsection", href: PublicRoute.groups.url(publicURL), type: MediaType.acquisition, title: "Browse all lanes")
        )
        for lane in try await arrangedLanes(logger: context.logger) {
            feed.navigation.append(Feed.Link(rel: "subsection", href: publicURL + lane.path, type: MediaType.acquisition, title: lane.title))
        }
        return try responder.render(feed, request: request, for: personal)
    }

    func groups(request: Request, context: CatalogRequestContext, personal: PatronOverlay) async throws -> StoredResponse {
        var feed = Feed(
            id: PublicRoute.groups.url(publicURL),
            title: "Browse",
            kind: .acquisition,
            links: baseLinks(self: PublicRoute.groups.path, type: MediaType.acquisition)
        )
        let arranged = try await arrangedLanes(logger: context.logger)
        let lanes = arranged.compactMap { if case .lane(let lane) = $0 { lane } else { nil } }
        // The lanes' pages are read meanwhile the recommendations and featured lists are.
        async let lanePages = feeds.firstBooks(
            of: lanes,
            size: Self.groupSize,
            hidden: personal.hidden,
            audience: personal.limit,
            logger: context.logger
        )
        if personal.shelf != nil {
            let books = try await recommendedBooks(patronID: context.patronID, personal: personal, size: Self.groupSize, logger: context.logger)
            if !books.isEmpty {
                feed.groups.append(
                    Feed.Group(title: recommendationsTitle(personal), href: publicURL + Self.recommendedPath, entries: entries(books, personal))
                )
            }
        }
        var listPages: [UUID: [BookEntry]] = [:]
        for case .list(let list, _) in arranged {
            listPages[list.id] = try await lists.page(list.id, after: 0, size: Self.groupSize, hidden: personal.hidden, logger: context.logger).books
        }
        let pages = Dictionary(zip(lanes.map(\.slug), try await lanePages), uniquingKeysWith: { first, _ in first })
        for lane in arranged {
            let books: [BookEntry]
            switch lane {
            case .list(let list, _): books = listPages[list.id] ?? []
            case .lane(let fixedOrGenre): books = pages[fixedOrGenre.slug] ?? []
            }
            guard !books.isEmpty else { continue }
            feed.groups.append(Feed.Group(title: lane.title, href: publicURL + lane.path, entries: entries(books, personal)))
        }
        return try responder.render(feed, request: request, for: personal)
    }

    func lane(request: Request, context: CatalogRequestContext, personal: PatronOverlay) async throws -> StoredResponse {
        let slug = context.parameters.get("lane") ?? ""
        guard let lane = Lane.named(slug) else { throw Problem.notFound("No lane '\(slug)'") }
        return try await page(of: lane, request: request, context: context, personal: personal)
    }

    /// `GET /opds/series/{name}`: the series' books in series order.
    func series(request: Request, context: CatalogRequestContext, personal: PatronOverlay) async throws -> StoredResponse {
        try await page(of: .series(try FeedRequest.name(context)), request: request, context: context, personal: personal)
    }

    /// `GET /opds/authors/{name}`: the author's books by title.
    func author(request: Request, context: CatalogRequestContext, personal: PatronOverlay) async throws -> StoredResponse {
        try await page(of: .author(try FeedRequest.name(context)), request: request, context: context, personal: personal)
    }

    /// `read`'s result; with a cursor, PostgreSQL's refusal of its value (a data exception: a cursor edited to carry
    /// text where the order has dates or numbers) as a 400 rather than a 500.
    static func forgedCursorIsBadRequest<T>(_ withCursor: Bool, _ read: () async throws -> T) async throws -> T {
        do {
            return try await read()
        } catch let error as PSQLError where withCursor && error.sqlState?.hasPrefix("22") == true {
            throw Problem.badRequest("after is not a cursor of this listing")
        }
    }

    /// One page of `lane` with its facets and paging links.
    func page(of lane: Lane, request: Request, context: CatalogRequestContext, personal: PatronOverlay) async throws -> StoredResponse {
        let query = try LaneQuery(request, lane: lane)
        let page: FeedPostgresRepository.Page
        if let same = personal.sharedRows?.hiding(personal.hidden) {
            page = same
        } else {
            page = try await Self.forgedCursorIsBadRequest(query.after != nil) {
                try await feeds.lane(
                    lane,
                    sort: query.sort,
                    order: query.order,
                    availableOnly: query.availableOnly,
                    accessibility: query.accessibility,
                    format: query.format,
                    audience: personal.limit,
                    size: query.size,
                    after: query.after,
                    hidden: personal.hidden,
                    // The page every visitor gets keeps a few rows more, for the patrons who hide some of its books.
                    spare: personal.shelf == nil ? FeedPostgresRepository.spareRows : 0,
                    logger: context.logger
                )
            }
        }
        var feed = Feed(id: publicURL + lane.path, title: lane.title, kind: .acquisition, links: [])
        if let shared = personal.spliceOnto?.source as? RenderedFeed, let rows = shared.rows, rows.next == page.next {
            // Spliced onto the shared page and paging as it does: its links are the shared page's, the same request's
            // (building them again was a fifth of a spliced page's work).
            feed.links = shared.feed.links
        } else {
            feed.links = laneLinks(lane, query: query, next: page.next)
        }
        feed.entries = entries(page.books, personal)
        feed.itemsPerPage = query.size
        return try responder.render(feed, request: request, for: personal, rows: page)
    }

    /// A lane page's links: itself, its first page, its next when `next`, and a first page for each facet choice.
    private func laneLinks(_ lane: Lane, query: LaneQuery, next: PageCursor?) -> [Feed.Link] {
        let base = lane.path
        func link(_ query: LaneQuery) -> String { base + query.queryString.suffix }
        var links = baseLinks(self: link(query), type: MediaType.acquisition)
        links.append(Feed.Link(rel: "first", href: publicURL + link(query.first()), type: MediaType.acquisition))
        if let next {
            links.append(Feed.Link(rel: "next", href: publicURL + link(query.next(next)), type: MediaType.acquisition))
        }
        for key in lane.sorts {
            for direction in SortOrder.allCases {
                links.append(
                    Feed.Link.facet(
                        publicURL + link(query.first(sort: key, order: direction)),
                        title: "\(key.label) (\(direction == .asc ? "ascending" : "descending"))",
                        group: "Sort by",
                        active: key == query.sort && direction == query.order
                    )
                )
            }
        }
        for available in [true, false] {
            links.append(
                Feed.Link.facet(
                    publicURL + link(query.first(availableOnly: available)),
                    title: available ? "Available now" : "All",
                    group: "Availability",
                    active: available == query.availableOnly
                )
            )
        }
        for facet in AccessibilityFacet.allCases {
            links.append(
                Feed.Link.facet(
                    publicURL + link(query.first(accessibility: facet)),
                    title: facet.label,
                    group: AccessibilityFacet.group,
                    active: facet == query.accessibility
                )
            )
        }
        for facet in FormatFacet.allCases {
            links.append(
                Feed.Link.facet(
                    publicURL + link(query.first(format: facet)),
                    title: facet.label,
                    group: FormatFacet.group,
                    active: facet == query.format
                )
            )
        }
        return links
    }

    func search(request: Request, context: CatalogRequestContext, personal: PatronOverlay) async throws -> StoredResponse {
        guard FeedPostgresRepository.SearchRequest.searches(request) else { return OpenSearchDescription.response(publicURL: publicURL) }
        let search = try FeedPostgresRepository.SearchRequest(request)
        let page: FeedPostgresRepository.Page
        // A hidden book among the books read can only be read around: no statement counts it first.
        if let shared = personal.sharedRows, !shared.corrected, shared.isUnchanged(byHiding: personal.hidden),
            let same = shared.hiding(
                personal.hidden,
                matching: try await feeds.matchCount(search, among: personal.hidden, logger: context.logger),
                in: search
            )
        {
            page = same
        } else {
            page = try await Self.forgedCursorIsBadRequest(search.after != nil) {
                try await feeds.search(search, hidden: personal.hidden, logger: context.logger)
            }
        }
        let path = PublicRoute.search.path
        var feed = Feed(
            id: publicURL + path + search.pageQueryString.suffix,
            title: "Search results",
            kind: .acquisition,
            links: baseLinks(self: path + search.pageQueryString.suffix, type: MediaType.acquisition)
        )
        // Continuing after this page's last book (books added meanwhile neither repeat nor push one off the next page),
        // or, for the short list of look-alike titles, by number.
        if let next = page.next.map({ search.queryString.adding("after", $0.encoded) })
            ?? page.nextPage.map({ search.queryString.adding("page", String($0)) })
        {
            feed.links.append(Feed.Link(rel: "next", href: publicURL + path + next.suffix, type: MediaType.acquisition))
        }
        // The accessibility facet of these results: the same search, from page 1, with each choice.
        for facet in AccessibilityFacet.allCases {
            var faceted = search
            faceted.accessibility = facet
            feed.links.append(
                Feed.Link.facet(
                    publicURL + path + faceted.queryString.adding("accessibility", facet == .all ? "all" : nil).suffix,
                    title: facet.label,
                    group: AccessibilityFacet.group,
                    active: facet == search.accessibility
                )
            )
        }
        for facet in FormatFacet.allCases {
            var faceted = search
            faceted.format = facet
            feed.links.append(
                Feed.Link.facet(
                    publicURL + path + faceted.queryString.adding("format", facet == .all ? "all" : nil).suffix,
                    title: facet.label,
                    group: FormatFacet.group,
                    active: facet == search.format
                )
            )
        }
        feed.entries = entries(page.books, personal)
        feed.totalResults = page.total
        feed.itemsPerPage = search.size
        return try responder.render(feed, request: request, for: personal, rows: page)
    }

    /// Saved books per page of the shelf feed.
    static let shelfPageSize = 100

    /// `GET /opds/shelf[?page=N]`: "My books" as an OPDS acquisition feed (the `http://opds-spec.org/shelf` of the
    /// root feed): every book the signed-in patron borrows or holds on the first page, then the saved books a page
    /// at a time (`ShelfPage`), newest change first, with their links.
    func shelf(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        guard let number = request.uri.queryParameters.get("page").map({ Int($0) }) ?? 1, (1...100_000).contains(number) else {
            throw Problem.badRequest("page must be a whole number from 1")
        }
        let copy = try await shelves.shelf(patronID: patronID, seen: request.shelfVersionSeen, logger: context.logger)
        let personal = PatronOverlay(shelf: copy.shelf, version: copy.version)
        let page = ShelfPage(copy.shelf.books, page: number, size: Self.shelfPageSize)
        let books = try await feeds.books.entries(ids: page.books.map(\.bookId), logger: context.logger)
        // Page 1 is the feed's own URL, without a query.
        func link(_ number: Int) -> String { PublicRoute.shelfFeed.path + QueryString().adding("page", number == 1 ? nil : String(number)).suffix }
        var feed = Feed(
            id: publicURL + link(number),
            title: "My books",
            kind: .acquisition,
            links: baseLinks(self: link(number), type: MediaType.acquisition)
        )
        if page.hasNext {
            feed.links.append(Feed.Link(rel: "next", href: publicURL + link(number + 1), type: MediaType.acquisition))
        }
        if number > 1 {
            feed.links.append(Feed.Link(rel: "previous", href: publicURL + link(number - 1), type: MediaType.acquisition))
        }
        feed.entries = entries(books, personal)
        return personal.personalised(try responder.render(feed, request: request)).response(to: request)
    }

    /// A book hidden by the patron ("ignored") is hidden from feeds and search, not from its own page: the patron
    /// reaches it from their account's list of hidden books, or a link they kept (it was a 404, the only non-2xx
    /// answers of issue 72's signed-in morning).
    func book(request: Request, context: CatalogRequestContext, personal: PatronOverlay) async throws -> StoredResponse {
        let id = try context.uuid("id")
        guard let book = try await feeds.books.entry(id: id, logger: context.logger), !book.withdrawn,
            personal.limit?.fits(book.audience) ?? true
        else {
            throw Problem.notFound("No book \(id)")
        }
        let entry = Entry(book: book, view: personal.views[id], publicURL: publicURL)
        if FeedRequest.wantsJSON(request) {
            let document = JSONWriter.bytes(of: OPDS2Renderer.publication(entry))
            return responder.cacheable(ByteBuffer(bytes: document), type: MediaType.opds2Publication, request: request, bookIDs: [id])
        }
        return responder.cacheable(AtomRenderer.entryDocument(entry), type: MediaType.entry, request: request, bookIDs: [id])
    }

    /// `GET /opds/books/{id}/related`: a grouped feed of the rest of the book's series in order, more by its first
    /// author and more of its first genre, without the book itself or books the patron ignores (the book may be one).
    func related(request: Request, context: CatalogRequestContext, personal: PatronOverlay) async throws -> StoredResponse {
        let id = try context.uuid("id")
        guard let book = try await feeds.books.entry(id: id, logger: context.logger), !book.withdrawn,
            personal.limit?.fits(book.audience) ?? true
        else {
            throw Problem.notFound("No book \(id)")
        }
        let path = PublicRoute.related(id).path
        var feed = Feed(
            id: publicURL + path,
            title: "Related to \(book.title)",
            kind: .acquisition,
            links: baseLinks(self: path, type: MediaType.acquisition)
        )
        var lanes: [(title: String, lane: Lane)] = []
        if let series = book.series { lanes.append(("More in \(series)", .series(series))) }
        if let author = book.metadata.authors.first?.name { lanes.append(("More by \(author)", .author(author))) }
        if let genre = book.genres.first, let lane = Lane.genre(genre) { lanes.append(("More \(lane.title)", lane)) }
        let hidden = personal.hidden + [id]
        async let pages = feeds.firstBooks(
            of: lanes.map(\.lane),
            size: Self.groupSize + 1,
            hidden: hidden,
            audience: personal.limit,
            logger: context.logger
        )
        // Patrons who borrowed this also borrowed (each shown book by at least three of them): after the series.
        let coBorrowedIDs = await discovery.coBorrowed(with: id, logger: context.logger).filter { !hidden.contains($0) }
        let coBorrowed = try await feeds.books.entries(ids: Array(coBorrowedIDs.prefix(Self.groupSize + 1)), logger: context.logger)
        var groups = zip(lanes, try await pages).map { (title: $0.0.title, href: publicURL + $0.0.lane.path, books: $0.1) }
        groups.insert((title: "Patrons who borrowed this also borrowed", href: publicURL + path, books: coBorrowed), at: book.series == nil ? 0 : 1)
        var shown: Set<UUID> = [id]
        for group in groups {
            // A book shows once, in the first group that has it.
            let books = group.books.filter { shown.insert($0.id).inserted }.prefix(Self.groupSize)
            guard !books.isEmpty else { continue }
            feed.groups.append(Feed.Group(title: group.title, href: group.href, entries: entries(Array(books), personal)))
        }
        return try responder.render(feed, request: request, for: personal)
    }

    // MARK: helpers

    func baseLinks(self path: String, type: String) -> [Feed.Link] {
        [
            Feed.Link(rel: "self", href: publicURL + path, type: type),
            Feed.Link(rel: "start", href: PublicRoute.catalogRoot.url(publicURL), type: MediaType.navigation, title: "Bookmobile"),
            Feed.Link(rel: "search", href: PublicRoute.search.url(publicURL), type: MediaType.openSearch, title: "Search"),
            Feed.Link(
                rel: "http://opds-spec.org/auth/document",
                href: PublicRoute.authDocument.url(publicURL),
                type: MediaType.authentication
            ),
        ]
    }

}
