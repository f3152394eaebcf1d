import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ServiceSupport
import Shared

/// `POST /feedback` (anonymous or signed in, rate-limited per client address) and `GET /admin/feedback` for operators.
struct FeedbackController: Sendable {
    let client: PostgresClient
    let token: ServiceToken
    let adminToken: String
    let perHour: Int

    func add(to router: Router<BasicRequestContext>) {
        router.post("/feedback", use: submit)
        router.get("/admin/feedback", use: list)
    }

    struct Submission: Codable {
        var message: String
        var email: String?
        var bookId: UUID?
        var kind: String?
    }

    struct Stored: Codable {
        var id: UUID
        var message: String
        var email: String?
        var bookId: UUID?
        var kind: String
        var signedIn: Bool
        var createdAt: Date
    }

    static let kinds = ["general", "book", "accessibility"]

    func submit(request: Request, context: BasicRequestContext) async throws -> Response {
        let caller = Caller(request: request, token: token)
        let body = try await JSONMessages.decode(Submission.self, from: request)
        let message = body.message.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...5000).contains(message.count) else { throw Problem.badRequest("message must be 1 to 5000 characters") }
        if let email = body.email { try Validation.email(email) }
        let kind = body.kind ?? (body.bookId == nil ? "general" : "book")
        guard Self.kinds.contains(kind) else { throw Problem.badRequest("kind must be one of \(Self.kinds)") }
        if let address = caller.clientAddress {
            let rows = try await client.query(
                "SELECT count(*)::int FROM feedback WHERE client_address = \(address) AND created_at > now() - interval '1 hour'", logger: context.logger)
            for try await count in rows.decode(Int.self) where count >= perHour {
                throw Problem(status: 429, slug: "too-much-feedback", title: "Too many requests", detail: "At most \(perHour) messages an hour", retryAfter: 3600)
            }
        }
        let id = UUID()
        try await client.query(
            """
            INSERT INTO feedback (id, patron_id, message, email, book_id, kind, client_address)
            VALUES (\(id), \(caller.patronID), \(message), \(body.email), \(body.bookId), \(kind), \(caller.clientAddress))
            """, logger: context.logger)
        context.logger.info("Feedback received", metadata: ["feedback.id": "\(id)"])
        return try JSONMessages.response(["id": id.uuidString.lowercased()], status: .created)
    }

    /// `GET /admin/feedback?size=N&after=<id>` newest first, for the admin token.
    func list(request: Request, context: BasicRequestContext) async throws -> Response {
        guard ServiceToken(adminToken).matches(BasicAuthorization.bearer(request.headers[.authorization])) else {
            throw Problem.unauthorized("The admin token is required")
        }
        let size = min(100, max(1, Int(request.uri.queryParameters.get("size") ?? "50") ?? 50))
        let after = request.uri.queryParameters.get("after").flatMap(UUID.init(uuidString:))
        let rows = try await client.query(
            """
            SELECT id, message, email, book_id, kind, patron_id IS NOT NULL, created_at FROM feedback
            WHERE \(after)::uuid IS NULL OR (created_at, id) < (SELECT created_at, id FROM feedback WHERE id = \(after))
            ORDER BY created_at DESC, id DESC LIMIT \(size)
            """, logger: context.logger)
        var items: [Stored] = []
        for try await (id, message, email, book, kind, signedIn, created) in rows.decode((UUID, String, String?, UUID?, String, Bool, Date).self) {
            items.append(Stored(id: id, message: message, email: email, bookId: book, kind: kind, signedIn: signedIn, createdAt: created))
        }
        struct Page: Encodable {
            var feedback: [Stored]
            var next: String?
        }
        let next = items.count == size ? items.last.map { "/admin/feedback?size=\(size)&after=\($0.id.uuidString.lowercased())" } : nil
        return try JSONMessages.response(Page(feedback: items, next: next))
    }
}
