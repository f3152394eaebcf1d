import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceSupport
import Shared

/// `/kosync/*`: the protocol of koreader-sync-server, which KOReader's progress sync plugin speaks (a patron sets
/// `<library>/kosync` as its custom sync server). Requests carry `x-auth-user` and `x-auth-key` (the MD5 of the
/// password): a user name and key of one of the patron's sync keys (`/me/sync-keys`), never the patron's PIN.
/// KOReader names a book by the partial MD5 of its file (catalog's licence carries each EPUB's): progress in a book
/// the patron has or had on loan is the one position the web reader reads too; progress in any other file is kept
/// under its name and returned as sent.
struct KOSyncController: Sendable {
    let keys: SyncKeyPostgresRepository
    let circulation: CirculationPostgresRepository
    let positions: PositionPostgresRepository
    let documents: KOReaderDocumentPostgresRepository
    let readingOrder: ReadingOrderCache

    static let maxFieldLength = 2_048
    /// `KOREADER_DOCUMENTS_PER_PATRON`: files outside the catalog whose progress is kept for one patron (the least
    /// recently written go first).
    var documentsPerPatron = 1_000

    func add(to router: Router<PatronRequestContext>) {
        router.post(.kosync(.createUser), use: createUser)
        router.get(.kosync(.auth), use: authorizeUser)
        router.put(.kosync(.progress), use: putProgress)
        router.get(.kosyncProgress(.key), use: getProgress)
        router.get(.kosync(.healthcheck)) { _, _ in JSONMessages.response(writing: KOSync.OK(key: "state")) }
    }

    /// Accounts are the library's: a sync key's user name answers "already registered", any other "registration is
    /// disabled" (koreader-sync-server's answer when it does not register users); nothing is created.
    func createUser(request: Request, context: PatronRequestContext) async throws -> Response {
        struct Registration: Decodable {
            var username: String?
            var password: String?
        }
        let body = try? JSONDecoder().decode(Registration.self, from: try await JSONMessages.body(of: request, limit: 16 * 1024))
        guard let username = body?.username, KOSync.isValidDocument(username), !(body?.password ?? "").isEmpty else {
            return KOSyncError.invalidRequest.response()
        }
        let exists = try await keys.exists(username: username, logger: context.logger)
        return (exists ? KOSyncError.userExists : KOSyncError.registrationDisabled).response()
    }

    func authorizeUser(request: Request, context: PatronRequestContext) async throws -> Response {
        guard try await patron(of: request, context: context) != nil else { return KOSyncError.unauthorized.response() }
        return JSONMessages.response(writing: KOSync.OK(key: "authorized"))
    }

    func putProgress(request: Request, context: PatronRequestContext) async throws -> Response {
        guard let patronID = try await patron(of: request, context: context) else { return KOSyncError.unauthorized.response() }
        let data = try await JSONMessages.body(of: request, limit: 16 * 1024)
        guard let update = try? JSONDecoder().decode(KOSync.ProgressUpdate.self, from: data) else { return KOSyncError.invalidRequest.response() }
        guard let document = update.document, KOSync.isValidDocument(document) else { return KOSyncError.documentMissing.response() }
        guard let percentage = update.percentage, (0...1).contains(percentage), let progress = update.progress, let device = update.device,
            [progress, device, update.deviceID ?? ""].allSatisfy({ $0.utf8.count <= Self.maxFieldLength })
        else {
            return KOSyncError.invalidRequest.response()
        }
        let logger = context.logger
        let written: Date
        if let bookID = try await readableBook(document, patronID: patronID, logger: logger) {
            let order = try await readingOrder.requiredHrefs(of: bookID, logger: logger)
            guard let locator = KOReaderPosition.locator(percentage: percentage, xpointer: progress, order: order) else {
                return KOSyncError.invalidRequest.response()
            }
            // Without a time of its own, KOReader's write is kept and comes back with a time.
            written =
                try await positions.savePlace(
                    locator: locator,
                    percentage: percentage,
                    xpointer: progress,
                    device: device,
                    deviceID: update.deviceID,
                    modified: nil,
                    patronID: patronID,
                    bookID: bookID,
                    logger: logger
                ) ?? Date()
        } else {
            let kept = KOReaderDocumentPostgresRepository.Progress(
                percentage: percentage,
                progress: progress,
                device: device,
                deviceID: update.deviceID,
                writtenAt: Date()
            )
            written = try await documents.save(kept, document: document, patronID: patronID, limit: documentsPerPatron, logger: logger)
        }
        return JSONMessages.response(writing: KOSync.Saved(document: document, timestamp: Int(written.timeIntervalSince1970)))
    }

    /// The newest progress kept for the document: the patron's position in the book it names (KOReader's own fields
    /// when KOReader wrote last, else the web reader's place as a percentage and the start of its chapter), or what
    /// KOReader sent for the file; `{}` when there is none.
    func getProgress(request: Request, context: PatronRequestContext) async throws -> Response {
        guard let patronID = try await patron(of: request, context: context) else { return KOSyncError.unauthorized.response() }
        let document = context.parameters.get("document") ?? ""
        guard KOSync.isValidDocument(document) else { return KOSyncError.documentMissing.response() }
        let logger = context.logger
        var record: KOSync.ProgressRecord?
        if let bookID = try await circulation.book(koreaderDigest: document, logger: logger),
            let view = try await positions.place(patronID: patronID, bookID: bookID, logger: logger)
        {
            var (percentage, xpointer) = (view.percentage, view.xpointer)
            if percentage == nil || xpointer == nil {
                (percentage, xpointer) = KOReaderPosition.progress(
                    of: view.locator,
                    order: await readingOrder.hrefs(of: bookID, logger: logger) ?? []
                )
            }
            record = KOSync.ProgressRecord(
                document: document,
                percentage: percentage ?? 0,
                progress: xpointer ?? "",
                device: view.device,
                deviceID: view.deviceID,
                timestamp: Int(view.writtenAt.timeIntervalSince1970)
            )
        }
        if let kept = try await documents.progress(document: document, patronID: patronID, logger: logger),
            Int(kept.writtenAt.timeIntervalSince1970) > record?.timestamp ?? Int.min
        {
            record = KOSync.ProgressRecord(document: document, kept: kept)
        }
        guard let record else { return JSONMessages.response(writing: KOSync.Nothing()) }
        return JSONMessages.response(writing: record)
    }

    /// The book KOReader's `document` names, when the patron has or had it on loan (or it is open access): the
    /// position is then the one the web reader reads.
    private func readableBook(_ document: String, patronID: UUID, logger: Logger) async throws -> UUID? {
        guard let bookID = try await circulation.book(koreaderDigest: document, logger: logger),
            try await circulation.isReadable(patronID: patronID, bookID: bookID, logger: logger)
        else { return nil }
        return bookID
    }

    /// The patron whose sync key the request's `x-auth-user` and `x-auth-key` are.
    private func patron(of request: Request, context: PatronRequestContext) async throws -> UUID? {
        guard let username = request.headers[Self.authUser], let key = request.headers[Self.authKey],
            KOSync.isValidDocument(username), !key.isEmpty, key.utf8.count <= 128
        else { return nil }
        return try await keys.patron(username: username, sentKey: key, logger: context.logger)
    }

    static let authUser = HTTPField.Name("x-auth-user")!
    static let authKey = HTTPField.Name("x-auth-key")!
}
