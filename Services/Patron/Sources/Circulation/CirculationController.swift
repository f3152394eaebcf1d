import Foundation
import Hummingbird
import ServiceSupport
import Shared

/// `/me/books/...`: the patron's books, circulation actions and client-reported events.
struct CirculationController: Sendable {
    let circulation: CirculationPostgresRepository
    /// The book machine over the same store.
    let changes: Circulation

    func add(to me: some RouterMethods<SignedInRequestContext>) {
        me.get(.myBooks, use: list)
        me.get(.myBook(.key), use: get)
        for (action, event) in [
            (PublicRoute.CirculationAction.borrow, BookEvent.borrow), (.accept, .accept), (.decline, .decline), (.returnLoan, .returnLoan),
            (.dismiss, .dismiss),
        ] {
            me.post(.circulation(.key, action)) { request, context in try await perform(event, request: request, context: context) }
        }
        me.post(.circulation(.key, .hold)) { request, context in try await perform(.hold, request: request, context: context) }
        me.delete(.circulation(.key, .hold)) { request, context in try await perform(.cancelHold, request: request, context: context) }
        me.put(.circulation(.key, .saved)) { request, context in try await perform(.save, request: request, context: context) }
        me.delete(.circulation(.key, .saved)) { request, context in try await perform(.unsave, request: request, context: context) }
        me.post(.circulation(.key, .renew), use: renew)
        me.post(.circulation(.key, .suspend), use: suspend)
        me.post(.circulation(.key, .resume), use: resume)
        me.post(.circulation(.key, .events), use: reportEvent)
        me.put(.circulation(.key, .ignored)) { request, context in try await ignore(true, request: request, context: context) }
        me.delete(.circulation(.key, .ignored)) { request, context in try await ignore(false, request: request, context: context) }
        me.get(.ignoredBooks, use: ignoredBooks)
    }

    /// `GET /me/ignored` → `{"books": [{bookId, title, authors, ignoredAt}]}`: the books the patron hid, to show again.
    func ignoredBooks(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let books = try await circulation.ignoredBooks(patronID: patronID, logger: context.logger)
        return try JSONMessages.response(["books": books], headers: [.cacheControl: "private, no-store"])
    }

    /// `GET /me/books?filter=all|saved|loans|holds` → `{"books": [...]}`; an OPDS client (asking for Atom or
    /// OPDS 2.0, not JSON) is sent to the shelf feed that catalog renders, `/opds/shelf`.
    func list(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let accept = request.headers[.accept] ?? ""
        if (accept.contains("application/atom+xml") || accept.contains(MediaType.opds2)) && !accept.contains(MediaType.json) {
            return Response(status: .seeOther, headers: [.location: PublicRoute.shelfFeed.url(circulation.rules.publicURL)])
        }
        let filter = request.uri.queryParameters.get("filter") ?? "all"
        let keep: (BookState) -> Bool
        switch filter {
        case "all": keep = { _ in true }
        case "saved": keep = { $0 == .saved }
        case "loans": keep = { $0.isOnLoan || $0 == .loanExpired }
        case "holds": keep = { [.waitingForLoan, .loanOffered, .loanOfferExpired].contains($0) }
        default: throw Problem.badRequest("filter must be all, saved, loans or holds")
        }
        let rows = try await circulation.shelf(patronID: patronID, logger: context.logger)
        let books = rows.filter { keep($0.state) }.map { $0.status(rules: circulation.rules) }
        return JSONMessages.response(writing: BookStatusList(books: books), headers: [.cacheControl: "private, no-store"])
    }

    /// `GET /me/books/{id}` → the state and the events it allows.
    func get(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let bookID = try context.uuid("id")
        return JSONMessages.response(writing: try await circulation.status(patronID: patronID, bookID: bookID, logger: context.logger))
    }

    func perform(_ event: BookEvent, request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let bookID = try context.uuid("id")
        let outcome = try await changes.apply(event, patronID: patronID, bookID: bookID, logger: context.logger)
        let creates = event == .borrow || event == .hold
        return JSONMessages.response(writing: outcome.status, status: creates && outcome.changed ? .created : .ok, headers: outcome.stampHeader)
    }

    /// `POST /me/books/{id}/renew` → the loan with its new due date; 409 when others wait.
    func renew(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let bookID = try context.uuid("id")
        return JSONMessages.response(writing: try await changes.renew(patronID: patronID, bookID: bookID, logger: context.logger))
    }

    struct SuspendRequest: Decodable {
        var until: String
    }

    /// The longest a hold may be suspended.
    static let longestSuspension: TimeInterval = 365 * 86_400

    /// `POST /me/books/{id}/suspend` `{"until": "2026-12-24"}` (a date, from which the hold is active again, or a
    /// date-time) → the hold, suspended; 409 when the book is not on hold.
    func suspend(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let bookID = try context.uuid("id")
        let text = try await JSONMessages.decode(SuspendRequest.self, from: request).until
        guard let until = Self.suspensionEnd(text) else {
            throw Problem.badRequest("until must be a date (2026-12-24) or a date-time (2026-12-24T09:00:00Z)")
        }
        guard until > Date(), until.timeIntervalSinceNow <= Self.longestSuspension else {
            throw Problem.badRequest("until must be in the future and at most a year ahead")
        }
        return JSONMessages.response(
            writing: try await changes.suspendHold(until: until, patronID: patronID, bookID: bookID, logger: context.logger)
        )
    }

    /// `POST /me/books/{id}/resume` → the hold, active again (offered a copy at once if one is free).
    func resume(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let bookID = try context.uuid("id")
        return JSONMessages.response(
            writing: try await changes.suspendHold(until: nil, patronID: patronID, bookID: bookID, logger: context.logger)
        )
    }

    /// A date-time as sent, or a calendar date as its first instant in UTC.
    static func suspensionEnd(_ text: String) -> Date? {
        if let date = WireFormat.parseDate(text) { return date }
        guard text.count == 10 else { return nil }
        return WireFormat.parseDate(text + "T00:00:00Z")
    }

    struct EventRequest: Decodable {
        var event: String
    }

    /// `POST /me/books/{id}/events` `{"event": "download_completed"}` → the new state; 409 when the state forbids it.
    func reportEvent(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let bookID = try context.uuid("id")
        let name = try await JSONMessages.decode(EventRequest.self, from: request).event
        guard let event = BookEvent(rawValue: name), BookEvent.clientReported.contains(event) else { throw CirculationError.notClientEvent(name) }
        let outcome = try await changes.apply(event, patronID: patronID, bookID: bookID, logger: context.logger)
        return JSONMessages.response(writing: outcome.status, headers: outcome.stampHeader)
    }

    /// `PUT`/`DELETE /me/books/{id}/ignored`: hide a book from every feed and search for this patron, or show it again.
    func ignore(_ ignored: Bool, request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let bookID = try context.uuid("id")
        try await circulation.setIgnored(ignored, patronID: patronID, bookID: bookID, logger: context.logger)
        return Response(status: .noContent)
    }
}

extension Circulation.Outcome {
    /// The change's shelf stamp for `ShelfPublishMiddleware`, which then needs no statement of its own.
    var stampHeader: HTTPFields { shelfStamp.map { [.shelfVersion: String($0)] } ?? [:] }
}
