import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ServiceSupport
import Shared

/// `/internal/...` routes for the gateway and catalog; every one needs the service token.
struct InternalController: Sendable {
    let authenticator: Authenticator
    let circulation: CirculationPostgresRepository
    /// The book machine over the same store.
    let changes: Circulation
    let shelves: ShelfPostgresRepository
    let taste: TastePostgresRepository
    let suggestions: SuggestionPostgresRepository
    let token: ServiceToken

    func add(to router: Router<PatronRequestContext>) {
        let group = router.group().add(middleware: ServiceTokenMiddleware(token: token))
        group.post(.basicCredentials, use: checkBasic)
        group.put(.license(.key), use: putLicense)
        group.put(.licenses, use: putLicenses)
        group.get(.patronShelf(.key), use: shelf)
        group.get(.loanCheck(patron: .key, book: .key), use: loanCheck)
        group.post(.bookEvents(patron: .key, book: .key), use: reportEvent)
        group.get(.session(.key), use: sessionStatus)
        group.post(.sessionStatuses, use: sessionStatuses)
        group.get(.secretStamp(.key), use: secretStamp)
        group.post(.secretStamps, use: secretStamps)
        group.get(.coBorrowed(.key), use: coBorrowed)
        group.get(.taste(.key), use: patronTaste)
    }

    /// Is this sign-in session still open, and whose is it? Unknown sessions (deleted with their account) are closed.
    func sessionStatus(request: Request, context: PatronRequestContext) async throws -> Response {
        let id = try context.uuid("id")
        let owner = try await authenticator.accounts.openSessionOwner(id, logger: context.logger)
        return try JSONMessages.response(SessionStatus(open: owner != nil, patronId: owner))
    }

    /// `sessionStatus` for many sessions at once (`IDsAsked`): the gateway's background renewals, in one statement.
    func sessionStatuses(request: Request, context: PatronRequestContext) async throws -> Response {
        let ids = try await Self.idsAsked(request)
        let owners = try await authenticator.accounts.openSessionOwners(ids, logger: context.logger)
        let statuses = Dictionary(ids.map { ($0.lowercased, SessionStatus(open: owners[$0] != nil, patronId: owners[$0])) }, uniquingKeysWith: { $1 })
        return try JSONMessages.response(SessionStatuses(sessions: statuses))
    }

    /// `secretStamp` for many patrons at once (`IDsAsked`).
    func secretStamps(request: Request, context: PatronRequestContext) async throws -> Response {
        let ids = try await Self.idsAsked(request)
        let stamps = try await authenticator.accounts.secretStamps(patronIDs: ids, logger: context.logger)
        return try JSONMessages.response(SecretStamps(stamps: Dictionary(ids.map { ($0.lowercased, stamps[$0]) }, uniquingKeysWith: { $1 })))
    }

    /// The ids a batched check asks about: at least one, at most `IDsAsked.limit`.
    static func idsAsked(_ request: Request) async throws -> [UUID] {
        let ids = try await JSONMessages.decode(IDsAsked.self, from: request).ids
        guard (1...IDsAsked.limit).contains(ids.count) else { throw Problem.badRequest("ask about 1 to \(IDsAsked.limit) ids") }
        return ids
    }

    /// Checks Basic credentials for the gateway: 200 `{patronId, secretStamp}`, 401, 429, or 503 when the bcrypt
    /// queue is full. A renewal of a verdict the gateway keeps (`X-Internal-Background-Check`) waits behind every first
    /// check.
    func checkBasic(request: Request, context: PatronRequestContext) async throws -> Response {
        let credentials = try await JSONMessages.decode(BasicCredentials.self, from: request)
        let (patronID, stamp) = try await authenticator.authenticate(
            login: credentials.login,
            secret: credentials.secret,
            clientAddress: credentials.clientAddress,
            priority: request.headers[.backgroundCheck] == "yes" ? .background : .first,
            logger: context.logger
        )
        let type = try await authenticator.accounts.patronType(patronID: patronID, logger: context.logger)
        return try JSONMessages.response(AuthenticatedPatron(patronId: patronID, secretStamp: stamp, patronType: type))
    }

    /// The stamp of the patron's current secret (`{"stamp": null}` when the account is gone): the gateway's cheap
    /// check that a Basic verdict it keeps still holds.
    func secretStamp(request: Request, context: PatronRequestContext) async throws -> Response {
        let stamp = try await authenticator.accounts.secretStamp(patronID: try context.uuid("patron"), logger: context.logger)
        return try JSONMessages.response(SecretStamp(stamp: stamp))
    }

    /// Stores a book's licence from catalog (ignoring versions older than the stored one); more copies offer
    /// themselves to the hold queue at once.
    func putLicense(request: Request, context: PatronRequestContext) async throws -> Response {
        let bookID = try context.uuid("id")
        let license = try await JSONMessages.decode(License.self, from: request)
        guard license.bookId == bookID, license.copies >= 0 else {
            throw Problem.badRequest("licence does not match the path or has negative copies")
        }
        try await circulation.store([license], logger: context.logger)
        try await announceArrivals([license], context: context)
        return Response(status: .noContent)
    }

    /// Stores many books' licences from catalog's outbox (a JSON array) in one transaction: a bulk ingest's licences
    /// arrive fifty to a request and a commit rather than one each. All or none: one bad licence refuses the batch,
    /// which the outbox then sends one by one.
    func putLicenses(request: Request, context: PatronRequestContext) async throws -> Response {
        let licenses = try await JSONMessages.decode([License].self, from: request, limit: 4 * 1024 * 1024)
        guard licenses.count <= 1_000 else { throw Problem.badRequest("at most 1,000 licences at once") }
        guard licenses.allSatisfy({ $0.copies >= 0 }) else { throw Problem.badRequest("a licence has negative copies") }
        try await circulation.store(licenses, logger: context.logger)
        try await announceArrivals(licenses, context: context)
        return Response(status: .noContent)
    }

    /// Books patrons asked the library to buy: they hear of them (a licence sent again finds nothing waiting any more).
    private func announceArrivals(_ licenses: [License], context: PatronRequestContext) async throws {
        let arriving = licenses.filter { !$0.withdrawn }.map { (id: $0.bookId, title: $0.title) }
        let answered = try await suggestions.arrived(arriving, logger: context.logger)
        if answered > 0 { context.logger.info("Purchase suggestions arrived", metadata: ["suggestions": "\(answered)"]) }
    }

    /// A numbered reading of the patron's shelf (`ShelfCopy`), for catalog when its copy is older than the version
    /// the patron's last change was stamped with. Catalog stores it; the background pass still publishes the change.
    func shelf(request: Request, context: PatronRequestContext) async throws -> Response {
        let patronID = try context.uuid("patron")
        guard let reading = try await shelves.read(patronID: patronID, wait: true, logger: context.logger) else {
            throw Problem(status: 503, slug: "unavailable", title: "Service unavailable", detail: "The shelf could not be read")
        }
        return try JSONMessages.response(reading.copy)
    }

    /// May the patron download the book now (an active loan)?
    func loanCheck(request: Request, context: PatronRequestContext) async throws -> Response {
        let state: BookState
        do {
            state = try await circulation.status(patronID: try context.uuid("patron"), bookID: try context.uuid("id"), logger: context.logger).state
        } catch CirculationError.unknownBook {
            state = .none
        }
        return try JSONMessages.response(LoanCheck(active: state.isOnLoan, state: state))
    }

    /// Applies an event that catalog observed (a download started); 409 when the state does not allow it.
    func reportEvent(request: Request, context: PatronRequestContext) async throws -> Response {
        let event = try await JSONMessages.decode(ReportedEvent.self, from: request).event
        guard BookEvent.clientReported.contains(event) else { throw CirculationError.notClientEvent(event.rawValue) }
        let outcome = try await changes.apply(event, patronID: try context.uuid("patron"), bookID: try context.uuid("id"), logger: context.logger)
        return try JSONMessages.response(outcome.status)
    }

    /// Books that at least three of this book's borrowers also borrowed (`?limit=`, at most 50).
    func coBorrowed(request: Request, context: PatronRequestContext) async throws -> Response {
        let bookID = try context.uuid("id")
        let limit = min(50, max(1, request.uri.queryParameters.get("limit").flatMap { Int($0) } ?? 20))
        let books = try await taste.coBorrowed(with: [bookID], limit: limit, logger: context.logger)
        return try JSONMessages.response(CoBorrowedBooks(books: books))
    }

    /// What the patron's recommendations start from.
    func patronTaste(request: Request, context: PatronRequestContext) async throws -> Response {
        let patronID = try context.uuid("patron")
        let (liked, had) = try await taste.taste(patronID: patronID, logger: context.logger)
        let coBorrowed = try await taste.coBorrowed(with: liked, excluding: had, limit: 50, logger: context.logger)
        return try JSONMessages.response(PatronTaste(liked: liked, had: had, coBorrowed: coBorrowed))
    }
}
