import Foundation
import Hummingbird
import ServiceSupport
import Shared

/// Mail to patrons. `/me/mail`: the patron's address, whether it is verified, which kinds of mail they get and in
/// which language (`PUT` `{"kinds": {"loan_due_soon": false}, "language": "fr"}`); `POST /me/mail/verification` mails a
/// link to the address. `/mail/verify` and `/mail/unsubscribe` are what mail's signed links open: a `GET` answers a page
/// with a button (link scanners open links; they do not press buttons), the `POST` does it (RFC 8058's one-click
/// unsubscribe posts `List-Unsubscribe=One-Click` there). `/admin/mail`: the console's queue.
struct MailController: Sendable {
    let mail: MailPostgresRepository
    let signer: MailToken.Signer
    /// False when `SMTP_URL` is unset: settings are kept, nothing is sent.
    let enabled: Bool

    func add(
        me: some RouterMethods<SignedInRequestContext>,
        public router: some RouterMethods<PatronRequestContext>,
        admin: some RouterMethods<PatronRequestContext>
    ) {
        me.get(.mailSettings, use: settings)
        me.put(.mailSettings, use: update)
        me.post(.mailVerification, use: requestVerification)
        router.get(.mailVerify) { request, _ in page(request, for: .verify) }
        router.post(.mailVerify, use: verify)
        router.get(.mailUnsubscribe) { request, _ in page(request, for: .unsubscribe) }
        router.post(.mailUnsubscribe, use: unsubscribe)
        admin.get(.mailQueue, use: queue)
    }

    struct SettingsAnswer: Encodable {
        var email: String?
        var verified: Bool
        var refused: String?
        var language: String
        var kinds: [String: Bool]
        var languages: [String]
        var mailEnabled: Bool
    }

    func settings(request: Request, context: SignedInRequestContext) async throws -> Response {
        guard let found = try await mail.settings(patronID: context.patronID, logger: context.logger) else {
            throw Problem.notFound("No such patron")
        }
        return try JSONMessages.response(
            SettingsAnswer(
                email: found.email,
                verified: found.verified,
                refused: found.refused,
                language: found.language,
                kinds: found.kinds,
                languages: MailTemplates.languages,
                mailEnabled: enabled
            ),
            headers: [.cacheControl: "no-store"]
        )
    }

    struct SettingsChange: Decodable {
        var kinds: [String: Bool]?
        var language: String?
    }

    func update(request: Request, context: SignedInRequestContext) async throws -> Response {
        let change = try await JSONMessages.decode(SettingsChange.self, from: request)
        if let unknown = change.kinds?.keys.first(where: { !MailTemplates.optional.contains($0) }) {
            throw Problem.badRequest("Unknown kind of mail \(unknown); the kinds are \(MailTemplates.optional.joined(separator: ", "))")
        }
        if let language = change.language, !MailTemplates.languages.contains(language) {
            throw Problem.badRequest("language must be one of \(MailTemplates.languages.joined(separator: ", "))")
        }
        try await mail.update(patronID: context.patronID, kinds: change.kinds ?? [:], language: change.language, logger: context.logger)
        return try await settings(request: request, context: context)
    }

    func requestVerification(request: Request, context: SignedInRequestContext) async throws -> Response {
        switch try await mail.requestVerification(patronID: context.patronID, logger: context.logger) {
        case .queued: return Response(status: .accepted)
        case .alreadyVerified: return Response(status: .noContent)
        case .noAddress: throw Problem(status: 409, slug: "no-email", title: "Conflict", detail: "Add an email address to your account first")
        }
    }

    func verify(request: Request, context: PatronRequestContext) async throws -> Response {
        guard let token = signer.open(request.uri.queryParameters.get("token") ?? "", as: .verify) else { throw Self.badLink }
        guard try await mail.verify(patronID: token.patron, address: token.subject, logger: context.logger) else {
            throw Problem(status: 409, slug: "address-changed", title: "Conflict", detail: "This address is no longer the one on the account")
        }
        context.logger.info("Email address verified", metadata: ["patron.id": "\(token.patron)"])
        return Self.html("Address confirmed", "Thank you: messages from the library will now reach this address.")
    }

    func unsubscribe(request: Request, context: PatronRequestContext) async throws -> Response {
        guard let token = signer.open(request.uri.queryParameters.get("token") ?? "", as: .unsubscribe),
            MailTemplates.optional.contains(token.subject)
        else { throw Self.badLink }
        try await mail.unsubscribe(patronID: token.patron, kind: token.subject, logger: context.logger)
        return Self.html("Unsubscribed", "You will get no more of these messages. Your account's page can turn them on again.")
    }

    func queue(request: Request, context: PatronRequestContext) async throws -> Response {
        let status = request.uri.queryParameters.get("status")
        if let status, !["sent", "waiting", "failed"].contains(status) { throw Problem.badRequest("status must be sent, waiting or failed") }
        return try JSONMessages.response(
            try await mail.queue(status: status, limit: 200, logger: context.logger),
            headers: [.cacheControl: "no-store"]
        )
    }

    /// The page a link opens: what pressing its button does, and the button (a form posting to the same address).
    func page(_ request: Request, for purpose: MailToken.Purpose) -> Response {
        guard let text = request.uri.queryParameters.get("token"), signer.open(text, as: purpose) != nil else {
            return Self.html("This link has expired", "Ask for a new one from your account's page.", status: .badRequest)
        }
        let (title, button) = purpose == .verify ? ("Confirm your address", "Confirm") : ("Stop these messages", "Unsubscribe")
        let form = "<form method=\"post\"><button type=\"submit\">\(button)</button></form>"
        return Self.html(title, "", extra: form)
    }

    static let badLink = Problem(status: 400, slug: "bad-mail-link", title: "Bad Request", detail: "This link is not valid or has expired")

    static func html(_ title: String, _ text: String, extra: String = "", status: HTTPResponse.Status = .ok) -> Response {
        let body = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">\
            <title>\(MailMessage.escaped(title))</title></head><body><main><h1>\(MailMessage.escaped(title))</h1>\
            <p>\(MailMessage.escaped(text))</p>\(extra)</main></body></html>
            """
        return Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: body))
        )
    }
}
