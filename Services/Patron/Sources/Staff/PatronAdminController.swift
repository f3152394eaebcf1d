import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ServiceSupport
import Shared

/// The console's patrons (admin tokens): find a patron, see their loans, holds and offers, block and unblock them, give
/// them a new PIN or password, end a loan, hold or offer for them (the queue moves on as usual); each change recorded
/// with the admin token's name (`AdminCaller`) in the staff audit, in the change's own transaction.
struct PatronAdminController: Sendable {
    let directory: PatronDirectoryPostgresRepository
    let audit: StaffAuditPostgresRepository
    let circulation: CirculationPostgresRepository
    let changes: Circulation
    let hasher: PasswordHasher
    let types: PatronTypeRules

    func add(to admin: RouterGroup<PatronRequestContext>) {
        admin.get(.adminPatrons, use: search)
        admin.get(.adminPatron(.key), use: patron)
        admin.post(.adminPatronBlock(.key), use: block)
        admin.delete(.adminPatronBlock(.key), use: unblock)
        admin.post(.adminPatronSecret(.key), use: resetSecret)
        admin.put(.adminPatronType(.key), use: setType)
        admin.post(.adminPatronBookEnd(.key, book: .key), use: endForPatron)
        admin.get(.staffAudit, use: auditLog)
    }

    static var staff: String { AdminCaller.name ?? "admin" }

    struct Found: Encodable {
        let patrons: [PatronDirectoryPostgresRepository.Summary]
        let next: UUID?
    }

    /// `GET /admin/patrons?q=&after=&limit=`: at most `limit` (25, up to 100) patrons whose card number, username or
    /// email starts with `q` (at least two characters); `next` pages on.
    func search(request: Request, context: PatronRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let q = (query.get("q") ?? "").trimmingCharacters(in: .whitespaces)
        guard q.count >= 2, q.count <= 200 else {
            throw Problem.badRequest("q must be 2 to 200 characters: the start of a card number, username or email")
        }
        guard let limit = Int(query.get("limit") ?? "25"), (1...100).contains(limit) else { throw Problem.badRequest("limit must be 1 to 100") }
        var after: UUID?
        if let text = query.get("after") {
            guard let id = UUID(uuidString: text) else { throw Problem.badRequest("after must be a patron id") }
            after = id
        }
        let found = try await directory.search(prefix: q, after: after, limit: limit + 1, logger: context.logger)
        let page = Array(found.prefix(limit))
        return try JSONMessages.response(
            Found(patrons: page, next: found.count > limit ? page.last?.id : nil),
            headers: [.cacheControl: "no-store"]
        )
    }

    struct Detail: Encodable {
        let patron: PatronDirectoryPostgresRepository.Summary
        let books: [PatronDirectoryPostgresRepository.Book]
        let audit: [StaffAuditPostgresRepository.Entry]
    }

    func patron(request: Request, context: PatronRequestContext) async throws -> Response {
        let id = try context.parameters.require("id", as: UUID.self)
        guard let patron = try await directory.patron(id, logger: context.logger) else { throw Problem.notFound("No patron \(id)") }
        // Reading a patron's loans, holds and offers is written down as changing them is: who looked, and when.
        try await audit.record("viewed", staff: Self.staff, patronID: id, logger: context.logger)
        return try JSONMessages.response(
            Detail(
                patron: patron,
                books: try await directory.books(of: id, logger: context.logger),
                audit: try await audit.list(patronID: id, before: nil, limit: 50, logger: context.logger)
            ),
            headers: [.cacheControl: "no-store"]
        )
    }

    struct BlockRequest: Decodable {
        let reason: String
    }

    /// `POST /admin/patrons/{id}/block` `{"reason"}`: the patron keeps what they have but cannot borrow, accept or place
    /// holds (403 `patron-blocked`, with the reason).
    func block(request: Request, context: PatronRequestContext) async throws -> Response {
        let id = try context.parameters.require("id", as: UUID.self)
        let reason = try await JSONMessages.decode(BlockRequest.self, from: request).reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...500).contains(reason.count), !reason.contains(where: \.isNewline) else {
            throw Problem.badRequest("reason must be one line of 1 to 500 characters: the patron is shown it")
        }
        guard try await directory.setBlock(reason, patronID: id, staff: Self.staff, logger: context.logger) else {
            throw Problem.notFound("No patron \(id)")
        }
        context.logger.info("Patron blocked", metadata: ["patron.id": "\(id)", "staff": "\(Self.staff)"])
        return try await patron(request: request, context: context)
    }

    func unblock(request: Request, context: PatronRequestContext) async throws -> Response {
        let id = try context.parameters.require("id", as: UUID.self)
        guard try await directory.setBlock(nil, patronID: id, staff: Self.staff, logger: context.logger) else {
            throw Problem.notFound("No patron \(id)")
        }
        context.logger.info("Patron unblocked", metadata: ["patron.id": "\(id)", "staff": "\(Self.staff)"])
        return try await patron(request: request, context: context)
    }

    struct TypeRequest: Decodable {
        let type: PatronType
    }

    /// `PUT /admin/patrons/{id}/type` `{"type": "adult" | "teen" | "child"}`: the patron's type and that type's loan and
    /// hold limits (`PATRON_TYPE_LIMITS`). An ILS that names a type at sign-in has the last word.
    func setType(request: Request, context: PatronRequestContext) async throws -> Response {
        let id = try context.parameters.require("id", as: UUID.self)
        let type: PatronType
        do {
            type = try await JSONMessages.decode(TypeRequest.self, from: request).type
        } catch is DecodingError {
            throw Problem.badRequest("type must be one of \(PatronType.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard try await directory.setType(type, limits: types.limits(for: type), patronID: id, staff: Self.staff, logger: context.logger) else {
            throw Problem.notFound("No patron \(id)")
        }
        context.logger.info("Patron type set by staff", metadata: ["patron.id": "\(id)", "type": "\(type.rawValue)", "staff": "\(Self.staff)"])
        return try await patron(request: request, context: context)
    }

    struct SecretRequest: Decodable {
        var pin: String?
        var password: String?
    }

    /// `POST /admin/patrons/{id}/secret` `{"pin"}` or `{"password"}` → 204: the old one stops working and every session
    /// of the patron ends (the gateway forgets its verdicts on them at once).
    func resetSecret(request: Request, context: PatronRequestContext) async throws -> Response {
        let id = try context.parameters.require("id", as: UUID.self)
        let body = try await JSONMessages.decode(SecretRequest.self, from: request)
        let (secret, kind): (String, String)
        switch (body.pin, body.password) {
        case (let pin?, nil):
            try Validation.pin(pin)
            (secret, kind) = (pin, "pin")
        case (nil, let password?):
            try Validation.password(password)
            (secret, kind) = (password, "password")
        default:
            throw Problem.badRequest("Send either pin (4 to 8 digits) or password")
        }
        let hash = try await hasher.hash(secret)
        guard try await directory.resetSecret(patronID: id, to: hash, kind: kind, staff: Self.staff, logger: context.logger) else {
            throw Problem.notFound("No patron \(id)")
        }
        context.logger.info("Patron's secret reset by staff", metadata: ["patron.id": "\(id)", "staff": "\(Self.staff)"])
        return Response(status: .noContent).announcingCredentialsChanged(of: id)
    }

    /// `POST /admin/patrons/{id}/books/{book}/end`: returns the patron's loan, cancels their hold or declines their
    /// offer, as the patron would; the next patron waiting gets the copy. 409 when the patron has none of these.
    func endForPatron(request: Request, context: PatronRequestContext) async throws -> Response {
        let id = try context.parameters.require("id", as: UUID.self)
        let book = try context.parameters.require("book", as: UUID.self)
        let logger = context.logger
        let staff = Self.staff
        let (circulation, changes) = (self.circulation, self.changes)
        let ended: String = try await circulation.client.transaction(logger: logger) { connection in
            let transaction = CirculationPostgresRepository.Transaction(repository: circulation, connection: connection, logger: logger)
            // The licence's lock first, then the patron's: the order every change takes them in.
            guard try await transaction.lockLicense(book) != nil else { throw Problem.notFound("No book \(book) is lendable here") }
            guard let locked = try await transaction.lockPatron(id, bookID: book) else { throw Problem.notFound("No patron \(id)") }
            let state = locked.row?.state ?? .none
            let event: BookEvent
            if state.isOnLoan, BookMachine.allowedEvents(from: state).contains(.returnLoan) {
                event = .returnLoan
            } else if state == .waitingForLoan {
                event = .cancelHold
            } else if state == .loanOffered {
                event = .decline
            } else {
                throw Problem.conflict("nothing-to-end", "The patron has no loan, hold or offer of this book (its state: \(state.rawValue))")
            }
            _ = try await changes.apply(event, patronID: id, bookID: book, in: transaction, logger: logger)
            try await StaffAuditPostgresRepository.record(
                "end-\(event.rawValue)",
                staff: staff,
                patronID: id,
                bookID: book,
                on: connection,
                logger: logger
            )
            return event.rawValue
        }
        logger.info("Circulation ended by staff", metadata: ["patron.id": "\(id)", "book.id": "\(book)", "event": "\(ended)", "staff": "\(staff)"])
        return try await patron(request: request, context: context)
    }

    /// `GET /admin/audit?patron=&before=`: what staff did, newest first, 100 at a time.
    func auditLog(request: Request, context: PatronRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        var patronID: UUID?
        if let text = query.get("patron") {
            guard let id = UUID(uuidString: text) else { throw Problem.badRequest("patron must be a patron id") }
            patronID = id
        }
        var before: Int64?
        if let text = query.get("before") {
            guard let id = Int64(text) else { throw Problem.badRequest("before must be an entry id") }
            before = id
        }
        let entries = try await audit.list(patronID: patronID, before: before, limit: 100, logger: context.logger)
        return try JSONMessages.response(["entries": entries], headers: [.cacheControl: "no-store"])
    }
}
