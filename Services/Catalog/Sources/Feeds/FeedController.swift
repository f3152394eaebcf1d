import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceSupport
import Shared

/// `/opds`, `/opds/groups`, `/opds/lanes/{lane}`, `/opds/search` and `/opds/books/{id}`: OPDS 1.2 Atom by default,
/// OPDS 2.0 for `Accept: application/opds+json`; personalised for a signed-in patron from catalog's copy of their shelf
/// (`PersonalView`), without a call to patron.
struct FeedController: Sendable {
    static let navigationType = "application/atom+xml;profile=opds-catalog;kind=navigation"
    static let acquisitionType = "application/atom+xml;profile=opds-catalog;kind=acquisition"
    static let entryType = "application/atom+xml;type=entry;profile=opds-catalog"
    static let opds2Type = "application/opds+json"
    static let groupSize = 10

    let feeds: FeedQueries
    let shelves: PatronShelves
    let discovery: PatronDiscovery
    let lists: BookListPostgresRepository
    let token: ServiceToken
    let publicURL: String
    let cache: ResponseCache
    /// Pages computed for one patron (their shelf touches the page), kept under the shared page's ETag and the
    /// shelf's version, so that any change to either makes a new entry: an app reloading a page pays once.
    let personalCache: ResponseCache

    func add(to router: Router<BasicRequestContext>) {
        router.get("/opds", use: shared(root, alwaysPersonal: true))
        // Personal for a signed-in patron: the first group is their recommendations.
        router.get("/opds/groups", use: shared(groups, alwaysPersonal: true))
        router.get(RouterPath(Self.recommendedPath), use: shared(recommended, alwaysPersonal: true))
        router.get("/opds/lanes/:lane", use: shared(lane))
        router.get("/opds/series/:name", use: shared(series))
        router.get("/opds/authors/:name", use: shared(author))
        router.get("/opds/search", use: shared(search))
        router.get("/opds/books/:id", use: shared(book))
        router.get("/opds/books/:id/related", use: shared(related))
        router.get("/opds/shelf", use: shelf)
        router.get("/opds/lists/:id", use: listFeed)
    }

    typealias PageHandler = @Sendable (Request, BasicRequestContext, PersonalView) async throws -> StoredResponse

    /// A page's shared part is computed once for everyone and kept in the feed cache (`FEED_CACHE_TTL`, stale for as
    /// long again); this replica's admin changes clear it. An anonymous visitor gets it as it is. A signed-in patron
    /// gets the same bytes (private, under an ETag that covers their shelf's version) when no book on the page is on
    /// their shelf or ignored by them; otherwise, and for pages whose feed-level parts are personal (`alwaysPersonal`),
    /// the page is computed for them.
    func shared(_ handler: @escaping PageHandler, alwaysPersonal: Bool = false) -> @Sendable (Request, BasicRequestContext) async throws -> Response {
        { request, context in
            let key = cacheKey(request)
            guard let patronID = Caller(request: request, token: token).patronID else {
                return try await cache.respond(to: request, key: key) {
                    let page = try await handler(request, context, .anonymous)
                    cache.put(key, page)
                    return page.response(to: request)
                }
            }
            let copy = try await shelves.shelf(patronID: patronID, seen: request.shelfVersionSeen, logger: context.logger)
            let personal = PersonalView(shelf: copy.shelf, version: copy.version)
            if alwaysPersonal {
                let personalKey = "\(key)|\(patronID.uuidString)|\(copy.version)"
                if let page = personalCache.get(personalKey) { return page.response(to: request) }
                let page = personal.personalised(try await handler(request, context, personal))
                personalCache.put(personalKey, page)
                return page.response(to: request)
            }
            let shared = try await sharedPage(key: key) { try await handler(request, context, .anonymous) }
            if shared.bookIDs.isDisjoint(with: personal.touched) {
                // The gateway holds the shared bytes already: it only needs to hear that they are this patron's page.
                if let held = request.headers[.sharedETag], held == shared.headers[.eTag] {
                    return Response(status: .noContent, headers: [
                        .sharedPageUsable: "yes", .eTag: personal.personalETag(held), .cacheControl: "private, no-cache",
                    ])
                }
                return personal.personalised(shared).response(to: request)
            }
            let personalKey = "\(key)|\(shared.headers[.eTag] ?? "")|\(patronID.uuidString)|\(copy.version)"
            if let page = personalCache.get(personalKey) { return page.response(to: request) }
            let page = personal.personalised(try await handler(request, context, personal))
            personalCache.put(personalKey, page)
            return page.response(to: request)
        }
    }

    /// The page as every visitor gets it: from the feed cache (fresh or stale), else computed and kept.
    func sharedPage(key: String, compute: () async throws -> StoredResponse) async throws -> StoredResponse {
        if let page = cache.get(key) ?? cache.stale(key) { return page }
        let page = try await compute()
        cache.put(key, page)
        return page
    }

    /// The query parameters feeds understand; others change nothing, so they are left out of cache keys and links.
    static let knownParameters: Set<Substring> = [
        "sort", "order", "available", "accessibility", "size", "after", "page", "q", "query", "title", "author", "genre", "publisher", "language",
        "isbn",
    ]

    /// The request's query with only `knownParameters`, still percent-encoded, in the request's order.
    static func knownQuery(_ request: Request) -> [String] {
        (request.uri.query ?? "").split(separator: "&").filter { item in
            !item.isEmpty && knownParameters.contains(item.split(separator: "=", maxSplits: 1).first ?? "")
        }.map(String.init)
    }

    /// What makes two anonymous requests get the same bytes: the path and the parameters feeds understand, OPDS 1 or 2,
    /// gzip or not. A padded URL maps to the same entry as the plain one.
    func cacheKey(_ request: Request) -> String {
        let query = Self.knownQuery(request).joined(separator: "&")
        return "\(request.uri.path)?\(query)|\(wantsJSON(request) ? "json" : "atom")|\(Gzip.accepted(by: request.headers[.acceptEncoding]) ? "gzip" : "")"
    }

    func entries(_ books: [BookDetail], _ personal: PersonalView) -> [Entry] {
        let views = personal.views
        return books.map { Entry(book: $0, view: views[$0.id], publicURL: publicURL) }
    }

    func root(request: Request, context: BasicRequestContext, personal: PersonalView) async throws -> StoredResponse {
        var feed = Feed(id: publicURL + "/opds", title: "Bookmobile", kind: .navigation, links: baseLinks(self: "/opds", type: Self.navigationType))
        feed.links.append(Feed.Link(rel: "http://opds-spec.org/shelf", href: publicURL + "/opds/shelf", type: Self.acquisitionType, title: "My books",
                                    count: personal.shelf?.waitingForAction))
        feed.navigation.append(
            Feed.Link(rel: "subsection", href: publicURL + Self.recommendedPath, type: Self.acquisitionType, title: recommendationsTitle(personal)))
        feed.navigation.append(Feed.Link(rel: "subsection", href: publicURL + "/opds/groups", type: Self.acquisitionType, title: "Browse all lanes"))
        for (list, path) in try await featuredLists(logger: context.logger) {
            feed.navigation.append(Feed.Link(rel: "subsection", href: publicURL + path, type: Self.acquisitionType, title: list.title))
        }
        for lane in Lane.fixed + (try await feeds.genreLanes(logger: context.logger)) {
            feed.navigation.append(Feed.Link(rel: "subsection", href: publicURL + "/opds/lanes/\(lane.slug)", type: Self.acquisitionType, title: lane.title))
        }
        return try respond(feed, request: request)
    }

    func groups(request: Request, context: BasicRequestContext, personal: PersonalView) async throws -> StoredResponse {
        var feed = Feed(id: publicURL + "/opds/groups", title: "Browse", kind: .acquisition, links: baseLinks(self: "/opds/groups", type: Self.acquisitionType))
        let lanes = Lane.fixed + (try await feeds.genreLanes(logger: context.logger))
        // The lanes' pages are read meanwhile the recommendations and featured lists are.
        async let lanePages = firstBooks(of: lanes, size: Self.groupSize, hidden: personal.hidden, logger: context.logger)
        if personal.shelf != nil {
            let books = try await recommendedBooks(request: request, personal: personal, size: Self.groupSize, logger: context.logger)
            if !books.isEmpty {
                feed.groups.append(Feed.Group(title: recommendationsTitle(personal), href: publicURL + Self.recommendedPath, entries: entries(books, personal)))
            }
        }
        for (list, path) in try await featuredLists(logger: context.logger) {
            let books = try await lists.page(list.id, after: 0, size: Self.groupSize, hidden: personal.hidden, logger: context.logger).books
            if !books.isEmpty { feed.groups.append(Feed.Group(title: list.title, href: publicURL + path, entries: entries(books, personal))) }
        }
        let pages = try await lanePages
        for (index, lane) in lanes.enumerated() {
            let books = pages[index]
            guard !books.isEmpty else { continue }
            feed.groups.append(Feed.Group(title: lane.title, href: publicURL + "/opds/lanes/\(lane.slug)", entries: entries(books, personal)))
        }
        return try respond(feed, request: request)
    }

    func lane(request: Request, context: BasicRequestContext, personal: PersonalView) async throws -> StoredResponse {
        let slug = context.parameters.get("lane") ?? ""
        guard let lane = Lane.named(slug) else { throw Problem.notFound("No lane '\(slug)'") }
        return try await page(of: lane, request: request, context: context, personal: personal)
    }

    /// `GET /opds/series/{name}`: the series' books in series order.
    func series(request: Request, context: BasicRequestContext, personal: PersonalView) async throws -> StoredResponse {
        try await page(of: .series(try Self.name(context)), request: request, context: context, personal: personal)
    }

    /// `GET /opds/authors/{name}`: the author's books by title.
    func author(request: Request, context: BasicRequestContext, personal: PersonalView) async throws -> StoredResponse {
        try await page(of: .author(try Self.name(context)), request: request, context: context, personal: personal)
    }

    /// The `name` path parameter, percent-decoded: at most 300 printable characters.
    static func name(_ context: BasicRequestContext) throws -> String {
        let raw = context.parameters.get("name") ?? ""
        let name = raw.removingPercentEncoding ?? raw
        guard (1...300).contains(name.count), !name.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
            throw Problem.badRequest("The name must be 1 to 300 printable characters")
        }
        return name
    }

    /// One page of `lane` with its facets and paging links.
    func page(of lane: Lane, request: Request, context: BasicRequestContext, personal: PersonalView) async throws -> StoredResponse {
        let query = request.uri.queryParameters
        let sort = try query.get("sort").map { guard let key = SortKey(rawValue: $0) else { throw Problem.badRequest("sort must be one of \(SortKey.allCases.map(\.rawValue))") }; return key } ?? lane.defaultSort
        let order = try query.get("order").map { guard let value = SortOrder(rawValue: $0) else { throw Problem.badRequest("order must be asc or desc") }; return value }
            ?? (query.get("sort") == nil ? lane.defaultOrder : .asc)
        let availableOnly = try availability(query.get("available"))
        let accessibility = try AccessibilityFacet(parameter: query.get("accessibility"))
        let size = try pageSize(query.get("size"))
        var after: PageCursor?
        if let text = query.get("after") {
            guard let cursor = PageCursor(encoded: text), cursor.sort == sort.rawValue, cursor.order == order.rawValue else {
                throw Problem.badRequest("after is not a cursor of this listing")
            }
            after = cursor
        }
        let page = try await feeds.lane(
            lane, sort: sort, order: order, availableOnly: availableOnly, accessibility: accessibility, size: size, after: after, hidden: personal.hidden,
            logger: context.logger)
        let base = lane.path
        let facetQuery = { (sort: SortKey, order: SortOrder, available: Bool, accessibility: AccessibilityFacet) in
            "\(base)?sort=\(sort.rawValue)&order=\(order.rawValue)&available=\(available ? "now" : "all")&accessibility=\(accessibility.rawValue)&size=\(size)"
        }
        let current = facetQuery(sort, order, availableOnly, accessibility)
        var feed = Feed(id: publicURL + base, title: lane.title, kind: .acquisition,
                        links: baseLinks(self: current + (after.map { "&after=\($0.encoded)" } ?? ""), type: Self.acquisitionType))
        feed.links.append(Feed.Link(rel: "first", href: publicURL + current, type: Self.acquisitionType))
        if let next = page.next { feed.links.append(Feed.Link(rel: "next", href: publicURL + current + "&after=\(next.encoded)", type: Self.acquisitionType)) }
        for key in SortKey.allCases where key != .seriesPosition || lane.defaultSort == .seriesPosition {
            for direction in SortOrder.allCases {
                feed.links.append(Feed.Link(rel: "http://opds-spec.org/facet", href: publicURL + facetQuery(key, direction, availableOnly, accessibility), type: Self.acquisitionType,
                                            title: "\(key.label) (\(direction == .asc ? "ascending" : "descending"))", facetGroup: "Sort by",
                                            activeFacet: key == sort && direction == order))
            }
        }
        for available in [true, false] {
            feed.links.append(Feed.Link(rel: "http://opds-spec.org/facet", href: publicURL + facetQuery(sort, order, available, accessibility), type: Self.acquisitionType,
                                        title: available ? "Available now" : "All", facetGroup: "Availability", activeFacet: available == availableOnly))
        }
        for facet in AccessibilityFacet.allCases {
            feed.links.append(
                Feed.Link(
                    rel: "http://opds-spec.org/facet", href: publicURL + facetQuery(sort, order, availableOnly, facet), type: Self.acquisitionType,
                    title: facet.label, facetGroup: AccessibilityFacet.group, activeFacet: facet == accessibility))
        }
        feed.entries = entries(page.books, personal)
        feed.itemsPerPage = size
        return try respond(feed, request: request)
    }

    func search(request: Request, context: BasicRequestContext, personal: PersonalView) async throws -> StoredResponse {
        let query = request.uri.queryParameters
        // `query` is what OPDS 2.0's templated search link (`/opds/search{?query}`) sends; `q` is OpenSearch's.
        let fields = ["q", "query", "title", "author", "genre", "publisher", "language", "isbn"]
        guard fields.contains(where: { query.get($0) != nil }) else { return openSearchDescription() }
        var search = FeedQueries.SearchRequest()
        for field in fields {
            if let value = query.get(field), value.count > 1000 || value.unicodeScalars.contains(where: { $0.value < 0x20 }) {
                throw Problem.badRequest("\(field) must be at most 1000 printable characters")
            }
        }
        search.q = query.get("q") ?? query.get("query")
        search.title = query.get("title")
        search.author = query.get("author")
        search.genre = query.get("genre")
        search.publisher = query.get("publisher")
        search.language = query.get("language")
        search.isbn = query.get("isbn")
        search.availableOnly = try availability(query.get("available"))
        search.accessibility = try AccessibilityFacet(parameter: query.get("accessibility"))
        if let sort = query.get("sort"), sort != "relevance" {
            guard let key = SortKey(rawValue: sort) else { throw Problem.badRequest("sort must be relevance or one of \(SortKey.allCases.map(\.rawValue))") }
            search.sort = key
        }
        if let order = query.get("order") { guard let value = SortOrder(rawValue: order) else { throw Problem.badRequest("order must be asc or desc") }; search.order = value }
        search.size = try pageSize(query.get("size"))
        if let page = query.get("page") { guard let value = Int(page), (1...10_000).contains(value) else { throw Problem.badRequest("page must be from 1 to 10000") }; search.page = value }
        if let text = query.get("after") {
            guard let cursor = PageCursor(encoded: text), cursor.sort == search.cursorSort, cursor.order == search.order.rawValue else {
                throw Problem.badRequest("after is not a cursor of this search")
            }
            search.after = cursor
        }
        let page = try await feeds.search(search, hidden: personal.hidden, logger: context.logger)
        let known = Self.knownQuery(request)
        let selfQuery = known.isEmpty ? "" : "?" + known.joined(separator: "&")
        var feed = Feed(id: publicURL + "/opds/search" + selfQuery, title: "Search results", kind: .acquisition,
                        links: baseLinks(self: "/opds/search" + selfQuery, type: Self.acquisitionType))
        // The request's own query, still percent-encoded, continuing after this page's last book (books added meanwhile
        // neither repeat nor push one off the next page), or, for the short list of look-alike titles, by number.
        if let next = page.next.map({ "after=\($0.encoded)" }) ?? page.nextPage.map({ "page=\($0)" }) {
            let items = known.filter { !$0.hasPrefix("page=") && !$0.hasPrefix("after=") } + [next]
            feed.links.append(Feed.Link(rel: "next", href: publicURL + "/opds/search?" + items.joined(separator: "&"), type: Self.acquisitionType))
        }
        // The accessibility facet of these results: the same query, from page 1, with each choice.
        let unfaceted = known.filter { !$0.hasPrefix("page=") && !$0.hasPrefix("after=") && !$0.hasPrefix("accessibility=") }
        for facet in AccessibilityFacet.allCases {
            feed.links.append(
                Feed.Link(
                    rel: "http://opds-spec.org/facet", href: publicURL + "/opds/search?" + (unfaceted + ["accessibility=\(facet.rawValue)"]).joined(separator: "&"),
                    type: Self.acquisitionType, title: facet.label, facetGroup: AccessibilityFacet.group, activeFacet: facet == search.accessibility))
        }
        feed.entries = entries(page.books, personal)
        feed.totalResults = page.total
        feed.itemsPerPage = search.size
        return try respond(feed, request: request)
    }

    /// Saved books per page of the shelf feed.
    static let shelfPageSize = 100

    /// `GET /opds/shelf[?page=N]`: "My books" as an OPDS acquisition feed (the `http://opds-spec.org/shelf` of the
    /// root feed): every book the signed-in patron borrows or holds on the first page, then the saved books a page
    /// at a time (`ShelfPage`), newest change first, with their links.
    func shelf(request: Request, context: BasicRequestContext) async throws -> Response {
        guard let patronID = Caller(request: request, token: token).patronID else { throw Problem.unauthorized("Sign in to see your books") }
        guard let number = request.uri.queryParameters.get("page").map({ Int($0) }) ?? 1, (1...100_000).contains(number) else {
            throw Problem.badRequest("page must be a whole number from 1")
        }
        let copy = try await shelves.shelf(patronID: patronID, seen: request.shelfVersionSeen, logger: context.logger)
        let personal = PersonalView(shelf: copy.shelf, version: copy.version)
        let page = ShelfPage(copy.shelf.books, page: number, size: Self.shelfPageSize)
        let books = try await feeds.books.summaries(ids: page.books.map(\.bookId), logger: context.logger)
        let path = number == 1 ? "/opds/shelf" : "/opds/shelf?page=\(number)"
        var feed = Feed(id: publicURL + path, title: "My books", kind: .acquisition, links: baseLinks(self: path, type: Self.acquisitionType))
        if page.hasNext { feed.links.append(Feed.Link(rel: "next", href: publicURL + "/opds/shelf?page=\(number + 1)", type: Self.acquisitionType)) }
        if number > 1 {
            let previous = number == 2 ? "/opds/shelf" : "/opds/shelf?page=\(number - 1)"
            feed.links.append(Feed.Link(rel: "previous", href: publicURL + previous, type: Self.acquisitionType))
        }
        feed.entries = entries(books, personal)
        return personal.personalised(try respond(feed, request: request)).response(to: request)
    }

    func book(request: Request, context: BasicRequestContext, personal: PersonalView) async throws -> StoredResponse {
        let id = try context.uuid("id")
        guard let book = try await feeds.books.detail(id: id, logger: context.logger), !book.withdrawn, !personal.hidden.contains(id) else {
            throw Problem.notFound("No book \(id)")
        }
        let entry = Entry(book: book, view: personal.views[id], publicURL: publicURL)
        if wantsJSON(request) {
            let data = try JSONSerialization.data(withJSONObject: OPDS2Renderer.publication(entry), options: [.sortedKeys, .withoutEscapingSlashes])
            return cacheable(data, type: "application/opds-publication+json", request: request, bookIDs: [id])
        }
        return cacheable(Data(AtomRenderer.entryDocument(entry).utf8), type: Self.entryType, request: request, bookIDs: [id])
    }

    /// `GET /opds/books/{id}/related`: a grouped feed of the rest of the book's series in order, more by its first
    /// author and more of its first genre, without the book itself or books the patron ignores.
    func related(request: Request, context: BasicRequestContext, personal: PersonalView) async throws -> StoredResponse {
        let id = try context.uuid("id")
        guard let book = try await feeds.books.detail(id: id, logger: context.logger), !book.withdrawn, !personal.hidden.contains(id) else {
            throw Problem.notFound("No book \(id)")
        }
        let path = "/opds/books/\(id.uuidString.lowercased())/related"
        var feed = Feed(id: publicURL + path, title: "Related to \(book.title)", kind: .acquisition, links: baseLinks(self: path, type: Self.acquisitionType))
        var lanes: [(title: String, lane: Lane)] = []
        if let series = book.series { lanes.append(("More in \(series)", .series(series))) }
        if let author = book.authors.first { lanes.append(("More by \(author)", .author(author))) }
        if let genre = book.genres.first, let lane = Lane.genre(genre) { lanes.append(("More \(lane.title)", lane)) }
        let hidden = personal.hidden + [id]
        async let pages = firstBooks(of: lanes.map(\.lane), size: Self.groupSize + 1, hidden: hidden, logger: context.logger)
        // Patrons who borrowed this also borrowed (each shown book by at least three of them): after the series.
        let coBorrowedIDs = await discovery.coBorrowed(with: id, logger: context.logger).filter { !hidden.contains($0) }
        let coBorrowed = try await feeds.books.summaries(ids: Array(coBorrowedIDs.prefix(Self.groupSize + 1)), logger: context.logger)
        var groups = zip(lanes, try await pages).map { (title: $0.0.title, href: publicURL + $0.0.lane.path, books: $0.1) }
        groups.insert((title: "Patrons who borrowed this also borrowed", href: publicURL + path, books: coBorrowed), at: book.series == nil ? 0 : 1)
        var shown: Set<UUID> = [id]
        for group in groups {
            // A book shows once, in the first group that has it.
            let books = group.books.filter { shown.insert($0.id).inserted }.prefix(Self.groupSize)
            guard !books.isEmpty else { continue }
            feed.groups.append(Feed.Group(title: group.title, href: group.href, entries: entries(Array(books), personal)))
        }
        return try respond(feed, request: request)
    }

    // MARK: helpers

    /// The first `size` books of each lane in its default order, queried at once (each on its own pooled
    /// connection), in the order of `lanes`.
    func firstBooks(of lanes: [Lane], size: Int, hidden: [UUID], logger: Logger) async throws -> [[BookDetail]] {
        let pages = try await withThrowingTaskGroup(of: (Int, [BookDetail]).self) { group in
            for (index, lane) in lanes.enumerated() {
                group.addTask {
                    let page = try await feeds.lane(
                        lane, sort: lane.defaultSort, order: lane.defaultOrder, availableOnly: false, size: size, after: nil, hidden: hidden,
                        logger: logger)
                    return (index, page.books)
                }
            }
            return try await group.reduce(into: [Int: [BookDetail]]()) { $0[$1.0] = $1.1 }
        }
        return lanes.indices.map { pages[$0] ?? [] }
    }

    func baseLinks(self path: String, type: String) -> [Feed.Link] {
        [
            Feed.Link(rel: "self", href: publicURL + path, type: type),
            Feed.Link(rel: "start", href: publicURL + "/opds", type: Self.navigationType, title: "Bookmobile"),
            Feed.Link(rel: "search", href: publicURL + "/opds/search", type: "application/opensearchdescription+xml", title: "Search"),
            Feed.Link(rel: "http://opds-spec.org/auth/document", href: publicURL + "/auth/document", type: "application/vnd.opds.authentication.v1.0+json"),
        ]
    }

    func wantsJSON(_ request: Request) -> Bool {
        let accept = request.headers[.accept] ?? ""
        return accept.contains("application/opds+json") || accept.contains("application/opds-publication+json")
    }

    /// The feed rendered for the request (OPDS 1.2 or 2.0), with the ids of its books.
    func respond(_ feed: Feed, request: Request) throws -> StoredResponse {
        let bookIDs = Set((feed.entries + feed.groups.flatMap(\.entries)).map(\.book.id))
        if wantsJSON(request) {
            var document = OPDS2Renderer.feed(feed)
            if var links = document["links"] as? [[String: Any]] {
                links = links.map { link in
                    var link = link
                    if link["rel"] as? String == "search" { link["href"] = publicURL + "/opds/search{?query}"; link["type"] = Self.opds2Type; link["templated"] = true }
                    return link
                }
                document["links"] = links
            }
            let data = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])
            return cacheable(data, type: Self.opds2Type, request: request, bookIDs: bookIDs)
        }
        return cacheable(
            Data(AtomRenderer.feed(feed).utf8), type: feed.kind == .navigation ? Self.navigationType : Self.acquisitionType, request: request,
            bookIDs: bookIDs)
    }

    /// A strong ETag over the bytes, public caching, and gzip when the client accepts it (a different representation,
    /// so a different ETag). A patron's copy is made private by `PersonalView.personalised`.
    func cacheable(_ data: Data, type: String, request: Request, bookIDs: Set<UUID>) -> StoredResponse {
        var body = data
        var etag = SHA256.hash(data: data).prefix(16).map { String(format: "%02x", $0) }.joined()
        var headers: HTTPFields = [
            .contentType: type, .cacheControl: "public, max-age=30",
            .vary: "Accept, Accept-Encoding, Authorization",
        ]
        if data.count > 1024, Gzip.accepted(by: request.headers[.acceptEncoding]), let compressed = Gzip.compress(data) {
            body = compressed
            etag += "-gz"
            headers[.contentEncoding] = "gzip"
        }
        headers[.eTag] = "\"\(etag)\""
        return StoredResponse(body: ByteBuffer(bytes: body), headers: headers, bookIDs: bookIDs)
    }

    func availability(_ value: String?) throws -> Bool {
        switch value {
        case nil, "all": return false
        case "now": return true
        default: throw Problem.badRequest("available must be now or all")
        }
    }

    func pageSize(_ value: String?) throws -> Int {
        guard let value else { return 50 }
        guard let size = Int(value), (1...100).contains(size) else { throw Problem.badRequest("size must be from 1 to 100") }
        return size
    }

    func openSearchDescription() -> StoredResponse {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">
            <ShortName>Bookmobile</ShortName>
            <Description>Search the library's catalog</Description>
            <InputEncoding>UTF-8</InputEncoding>
            <OutputEncoding>UTF-8</OutputEncoding>
            <Url type="\(Self.acquisitionType)" template="\(publicURL)/opds/search?q={searchTerms}"/>
            <Url type="\(Self.opds2Type)" template="\(publicURL)/opds/search?q={searchTerms}"/>
            </OpenSearchDescription>
            """
        return StoredResponse(
            body: ByteBuffer(string: xml), headers: [.contentType: "application/opensearchdescription+xml", .cacheControl: "public, max-age=3600"])
    }
}
