import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceSupport
import Shared

/// `PUT`/`DELETE /me/favorites/{id}`: the patron's favourite books.
struct FavoriteController: Sendable {
    let favorites: FavoritePostgresRepository
    let sync: ReadingSync

    func add(to me: some RouterMethods<SignedInRequestContext>) {
        me.put(.favorite(.key)) { request, context in try await favorite(true, request: request, context: context) }
        me.delete(.favorite(.key)) { request, context in try await favorite(false, request: request, context: context) }
    }

    func favorite(_ on: Bool, request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let bookID = try context.uuid("id")
        if on { try await sync.requireKnownBook(bookID, logger: context.logger) }
        try await favorites.setFavorite(on, patronID: patronID, bookID: bookID, logger: context.logger)
        return Response(status: .noContent)
    }
}
