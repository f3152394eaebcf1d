import Foundation
import Hummingbird
import Logging
import ServiceSupport
import Shared

/// `POST /feedback` (anonymous or signed in, rate-limited per client address) and `GET /admin/feedback` for operators.
struct FeedbackController: Sendable {
    let feedback: FeedbackPostgresRepository
    let token: ServiceToken
    let perHour: Int

    /// `admin` is a group behind `AdminTokenMiddleware`.
    func add(to router: Router<PatronRequestContext>, admin: RouterGroup<PatronRequestContext>) {
        router.post(.feedback, use: submit)
        admin.get(.feedbackList, use: list)
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

    func submit(request: Request, context: PatronRequestContext) async throws -> Response {
        let caller = Caller(request: request, token: token)
        let body = try await JSONMessages.decode(Submission.self, from: request)
        let message = body.message.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...5000).contains(message.count) else { throw Problem.badRequest("message must be 1 to 5000 characters") }
        if let email = body.email { try Validation.email(email) }
        let kind = body.kind ?? (body.bookId == nil ? "general" : "book")
        guard Self.kinds.contains(kind) else { throw Problem.badRequest("kind must be one of \(Self.kinds)") }
        let id = UUID()
        let stored = Stored(
            id: id,
            message: message,
            email: body.email,
            bookId: body.bookId,
            kind: kind,
            signedIn: caller.patronID != nil,
            createdAt: Date()
        )
        do {
            try await feedback.submit(
                stored,
                clientAddress: caller.clientAddress,
                patronID: caller.patronID,
                perHour: perHour,
                logger: context.logger
            )
        } catch FeedbackPostgresRepository.Failure.tooMany(let limit) {
            throw Problem(
                status: 429,
                slug: "too-much-feedback",
                title: "Too many requests",
                detail: "At most \(limit) messages an hour",
                retryAfter: 3600
            )
        }
        context.logger.info("Feedback received", metadata: ["feedback.id": "\(id)"])
        return try JSONMessages.response(["id": id.lowercased], status: .created)
    }

    /// `GET /admin/feedback?size=N&after=<id>` newest first, for the admin token.
    func list(request: Request, context: PatronRequestContext) async throws -> Response {
        let size = min(100, max(1, Int(request.uri.queryParameters.get("size") ?? "50") ?? 50))
        let after = request.uri.queryParameters.get("after").flatMap(UUID.init(uuidString:))
        let items = try await feedback.list(size: size, after: after, logger: context.logger)
        struct Page: Encodable {
            var feedback: [Stored]
            var next: String?
        }
        let next =
            items.count == size
            ? items.last.map { PublicRoute.feedbackList.path + QueryString().adding("size", String(size)).adding("after", $0.id.lowercased).suffix }
            : nil
        return try JSONMessages.response(Page(feedback: items, next: next))
    }
}
