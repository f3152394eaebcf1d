import Foundation
import Hummingbird
import ServiceSupport
import Shared

/// `/me/lists...` (a signed-in patron's own lists) and `/admin/lists...` (staff lists, admin token): the same JSON
/// API over lists of different owners. Each list is also an OPDS feed, `/opds/lists/{id}` (`FeedController`).
struct ListsController: Sendable {
    let lists: BookListPostgresRepository
    let publicURL: String
    /// Cleared when a staff list changes: featured ones are lanes of the root and grouped feeds.
    let feedCache: ResponseCache

    /// A patron's lists are the signed-in patron's (401 for anyone else); the staff's have no owner, behind `admin`,
    /// a group behind `AdminTokenMiddleware`.
    func add(to router: Router<CatalogRequestContext>, admin: RouterGroup<CatalogRequestContext>) {
        routes(router.group(context: SignedInRequestContext.self), of: .patron) { $0.patronID }
        routes(admin, of: .staff) { _ in nil }
    }

    private func routes<Context: RequestContext>(
        _ group: some RouterMethods<Context>,
        of listOwner: PublicRoute.ListOwner,
        owner: @escaping @Sendable (Context) -> UUID?
    ) {
        let staff = listOwner == .staff
        group.get(.lists(listOwner)) { request, context in try await index(owner(context), context: context) }
        group.post(.lists(listOwner)) { request, context in
            try await create(request, context: context, owner: owner(context), staff: staff)
        }
        group.get(.list(listOwner, .key)) { request, context in
            try respond(
                try await translated { try await lists.owned(try context.uuid("id"), by: owner(context), logger: context.logger) }
            )
        }
        group.patch(.list(listOwner, .key)) { request, context in
            try await update(request, context: context, owner: owner(context), staff: staff)
        }
        group.delete(.list(listOwner, .key)) { request, context in
            let owner = owner(context)
            try await translated { try await lists.delete(try context.uuid("id"), owner: owner, logger: context.logger) }
            if staff { feedCache.clear() }
            return Response(status: .noContent)
        }
        group.put(.listBooks(listOwner, .key)) { request, context in
            let owner = owner(context)
            let books = try await JSONMessages.decode(BooksRequest.self, from: request).books
            guard Set(books).count == books.count else { throw Problem.badRequest("books lists a book twice") }
            let list = try await translated { try await lists.setBooks(try context.uuid("id"), owner: owner, books: books, logger: context.logger) }
            if staff { feedCache.clear() }
            return try respond(list)
        }
        group.post(.listBooks(listOwner, .key)) { request, context in
            let owner = owner(context)
            let book = try await JSONMessages.decode(AddRequest.self, from: request).bookId
            let id = try context.uuid("id")
            let added = try await translated { try await lists.addBook(book, to: id, owner: owner, logger: context.logger) }
            if staff { feedCache.clear() }
            return try respond(try await lists.owned(id, by: owner, logger: context.logger), status: added ? .created : .ok)
        }
        group.delete(.listBook(listOwner, .key, book: .key)) { request, context in
            let owner = owner(context)
            try await translated {
                try await lists.removeBook(try context.uuid("book"), from: try context.uuid("id"), owner: owner, logger: context.logger)
            }
            if staff { feedCache.clear() }
            return Response(status: .noContent)
        }
    }

    struct ListRequest: Decodable {
        var title: String?
        var description: String?
        var isPublic: Bool?
        var featured: Bool?

        enum CodingKeys: String, CodingKey {
            case title, description
            case isPublic = "public"
            case featured
        }

        /// The fields checked: a title of 1-200 characters, a description of at most 2000; `featured` for staff only.
        func validated(staff: Bool, creating: Bool) throws -> ListRequest {
            var checked = self
            checked.title = title?.trimmingCharacters(in: .whitespacesAndNewlines)
            if creating && checked.title == nil { throw Problem.badRequest("title is required") }
            if let title = checked.title, title.isEmpty || title.count > BookList.titleLimit {
                throw Problem.badRequest("title must have 1 to \(BookList.titleLimit) characters")
            }
            if let description, description.count > BookList.descriptionLimit {
                throw Problem.badRequest("description must have at most \(BookList.descriptionLimit) characters")
            }
            if featured != nil && !staff { throw Problem.badRequest("only staff lists can be featured") }
            return checked
        }
    }

    struct BooksRequest: Decodable {
        var books: [UUID]
    }

    struct AddRequest: Decodable {
        var bookId: UUID
    }

    func index(_ owner: UUID?, context: some RequestContext) async throws -> Response {
        let found = try await lists.lists(owner: owner, logger: context.logger).map(withFeed)
        return try JSONMessages.response(["lists": found], headers: [.cacheControl: "private, no-store"])
    }

    func create(_ request: Request, context: some RequestContext, owner: UUID?, staff: Bool) async throws -> Response {
        let body = try await JSONMessages.decode(ListRequest.self, from: request).validated(staff: staff, creating: true)
        let list = try await translated {
            try await lists.create(
                owner: owner,
                title: body.title ?? "",
                description: body.description ?? "",
                isPublic: body.isPublic ?? staff,
                featured: body.featured ?? false,
                logger: context.logger
            )
        }
        if staff { feedCache.clear() }
        return try respond(list, status: .created)
    }

    func update(_ request: Request, context: some RequestContext, owner: UUID?, staff: Bool) async throws -> Response {
        let body = try await JSONMessages.decode(ListRequest.self, from: request).validated(staff: staff, creating: false)
        let list = try await translated {
            try await lists.update(
                try context.uuid("id"),
                owner: owner,
                title: body.title,
                description: body.description,
                isPublic: body.isPublic,
                featured: body.featured,
                logger: context.logger
            )
        }
        if staff { feedCache.clear() }
        return try respond(list)
    }

    func withFeed(_ list: BookList) -> BookList {
        var list = list
        list.feedUrl = PublicRoute.listFeed(list.id).url(publicURL)
        return list
    }

    func respond(_ list: BookList, status: HTTPResponse.Status = .ok) throws -> Response {
        try JSONMessages.response(withFeed(list), status: status, headers: [.cacheControl: "private, no-store"])
    }

    /// Runs a repository call, answering its refusals with problem documents.
    func translated<T>(_ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch let error as BookListError {
            switch error {
            case .notFound(let id): throw Problem.notFound("No list \(id.lowercased)")
            case .tooManyLists(let limit): throw Problem.conflict("list-limit", "A patron keeps at most \(limit) lists")
            case .tooManyBooks(let limit): throw Problem.conflict("list-full", "A list holds at most \(limit) books")
            case .unknownBooks(let ids):
                throw Problem(
                    status: 422,
                    slug: "unknown-books",
                    title: "Unprocessable content",
                    detail: "No such books (or withdrawn): \(ids.map { $0.lowercased }.joined(separator: ", "))"
                )
            }
        }
    }
}
