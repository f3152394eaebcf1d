import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceSupport
import Shared

/// `/me/books/{id}/rating`: the patron's stars for a book.
struct RatingController: Sendable {
    let ratings: RatingPostgresRepository
    let sync: ReadingSync

    func add(to me: some RouterMethods<SignedInRequestContext>) {
        me.put(.rating(.key), use: putRating)
        me.delete(.rating(.key), use: deleteRating)
        me.get(.rating(.key), use: getRating)
    }

    struct Rating: Codable {
        var stars: Int
    }

    /// `PUT /me/books/{id}/rating` `{stars: 1…5}`; the book's average reaches catalog through the outbox.
    func putRating(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let bookID = try context.uuid("id")
        let rating = try await JSONMessages.decode(Rating.self, from: request)
        guard (1...5).contains(rating.stars) else { throw Problem.badRequest("stars must be from 1 to 5") }
        try await sync.requireKnownBook(bookID, logger: context.logger)
        try await ratings.rate(rating.stars, patronID: patronID, bookID: bookID, logger: context.logger)
        return try JSONMessages.response(rating)
    }

    func getRating(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let bookID = try context.uuid("id")
        guard let stars = try await ratings.rating(patronID: patronID, bookID: bookID, logger: context.logger) else {
            throw Problem.notFound("You have not rated this book")
        }
        return try JSONMessages.response(Rating(stars: stars))
    }

    func deleteRating(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        try await ratings.removeRating(patronID: patronID, bookID: try context.uuid("id"), logger: context.logger)
        return Response(status: .noContent)
    }
}
