import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceSupport
import Shared

/// `/me/books/{id}/position`: where the patron is in a book, last writer by timestamp wins.
struct PositionController: Sendable {
    let sync: ReadingSync

    func add(to me: some RouterMethods<SignedInRequestContext>) {
        me.get(.position(.key), use: getPosition)
        me.put(.position(.key), use: putPosition)
    }

    func getPosition(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let bookID = try context.uuid("id")
        guard let position = try await sync.position(patronID: patronID, bookID: bookID, logger: context.logger) else {
            throw Problem.notFound("No reading position for this book yet")
        }
        return try JSONMessages.response(position)
    }

    /// `PUT /me/books/{id}/position` → 200 when this write is the newest; 409 with the newer position otherwise.
    func putPosition(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let bookID = try context.uuid("id")
        let body = try await JSONMessages.decode(ReadingPosition.self, from: request)
        if let newer = try await sync.savePosition(body, patronID: patronID, bookID: bookID, logger: context.logger) {
            return try JSONMessages.response(newer, status: .conflict)
        }
        return try JSONMessages.response(body)
    }
}
