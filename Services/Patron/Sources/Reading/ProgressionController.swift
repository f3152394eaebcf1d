import Foundation
import Hummingbird
import ServiceSupport
import Shared

/// `/me/books/{id}/progression`: the book's one reading position as an OPDS Progression document, for Readium-based
/// apps (the `http://opds-spec.org/progression` link of a borrowed book in feeds and its manifest). `GET` answers
/// 200 with the document or 204 without one; `PUT` keeps the place unless a newer one exists (409 with it).
struct ProgressionController: Sendable {
    let sync: ReadingSync
    let positions: PositionPostgresRepository
    let readingOrder: ReadingOrderCache

    func add(to me: some RouterMethods<SignedInRequestContext>) {
        me.get(.progression(.key), use: get)
        me.put(.progression(.key), use: put)
    }

    func get(request: Request, context: SignedInRequestContext) async throws -> Response {
        let bookID = try context.uuid("id")
        guard let place = try await positions.place(patronID: context.patronID, bookID: bookID, logger: context.logger) else {
            return Response(status: .noContent)
        }
        return try await respond(place, bookID: bookID, context: context)
    }

    func put(request: Request, context: SignedInRequestContext) async throws -> Response {
        let bookID = try context.uuid("id")
        let document = try await JSONMessages.decode(ProgressionDocument.self, from: request).validated()
        try await sync.requireReadable(patronID: context.patronID, bookID: bookID, logger: context.logger)
        let order = try await readingOrder.requiredHrefs(of: bookID, logger: context.logger)
        let reference = document.chapter(in: order)
        guard
            let locator = BookProgress.locator(
                percentage: document.progression,
                chapter: reference?.chapter,
                fragment: reference?.fragment,
                order: order
            )
        else { throw Problem.badRequest("The book has no reading order to place a progression in") }
        let kept = try await positions.savePlace(
            locator: locator,
            percentage: BookProgress.rounded(document.progression),
            xpointer: nil,
            device: document.device.name,
            deviceID: document.device.id,
            modified: document.modified,
            patronID: context.patronID,
            bookID: bookID,
            logger: context.logger
        )
        guard let place = try await positions.place(patronID: context.patronID, bookID: bookID, logger: context.logger) else {
            throw Problem.conflict("position-race", "The position changed meanwhile; try again")
        }
        return try await respond(place, bookID: bookID, status: kept == nil ? .conflict : .ok, context: context)
    }

    private func respond(
        _ place: PositionPostgresRepository.Place,
        bookID: UUID,
        status: HTTPResponse.Status = .ok,
        context: SignedInRequestContext
    ) async throws -> Response {
        let order = await readingOrder.hrefs(of: bookID, logger: context.logger) ?? []
        let document = ProgressionDocument(
            modified: place.writtenAt,
            device: .init(id: place.deviceID.map(Self.deviceURI) ?? Self.deviceURI(place.device), name: place.device),
            progression: place.percentage ?? BookProgress.percentage(of: place.locator, order: order),
            references: [place.locator.href]
        )
        return try JSONMessages.response(
            document,
            status: status,
            contentType: ProgressionDocument.mediaType,
            headers: [.cacheControl: "private, no-store"]
        )
    }

    /// A device id as a URI: one already (OPDS Progression's), or a name or KOReader's id made one.
    static func deviceURI(_ id: String) -> String {
        id.contains(":") ? id : "urn:x-bookmobile:device:" + (id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
    }
}
