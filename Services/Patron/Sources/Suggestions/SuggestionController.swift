import Foundation
import Hummingbird
import ServiceSupport
import Shared

/// Purchase suggestions: `/me/suggestions` for patrons, `/admin/suggestions` for staff (audited).
struct SuggestionController: Sendable {
    let suggestions: SuggestionPostgresRepository
    let audit: StaffAuditPostgresRepository

    func add(me: some RouterMethods<SignedInRequestContext>, admin: some RouterMethods<PatronRequestContext>) {
        me.get(.mySuggestions, use: mine)
        me.post(.mySuggestions, use: suggest)
        admin.get(.adminSuggestions, use: list)
        admin.put(.adminSuggestion(.key), use: answer)
        admin.post(.adminSuggestionMerge(.key), use: merge)
    }

    struct Mine: Encodable {
        var suggestions: [PurchaseSuggestion]
    }

    /// `GET /me/suggestions` → the patron's suggestions, newest first, each with the library's answer.
    func mine(request: Request, context: SignedInRequestContext) async throws -> Response {
        try JSONMessages.response(Mine(suggestions: try await suggestions.mine(patronID: context.patronID, logger: context.logger)))
    }

    /// `POST /me/suggestions` `{title, author?, note?}` → 201 with the suggestion (200 with the one waiting already for
    /// the same title); 400 for a bad field; 409 `suggestion-limit` past 20 waiting.
    func suggest(request: Request, context: SignedInRequestContext) async throws -> Response {
        let asked = try await JSONMessages.decode(SuggestionRequest.self, from: request).validated()
        let (suggestion, created) = try await suggestions.suggest(asked, patronID: context.patronID, logger: context.logger)
        if created { context.logger.info("Purchase suggested", metadata: ["suggestion.id": "\(suggestion.id)"]) }
        return try JSONMessages.response(suggestion, status: created ? .created : .ok)
    }

    /// `GET /admin/suggestions` → `{suggestions}`: every suggestion no other joined, with how many patrons asked.
    func list(request: Request, context: PatronRequestContext) async throws -> Response {
        try JSONMessages.response(Mine(suggestions: try await suggestions.staffList(logger: context.logger)))
    }

    struct Answer: Decodable {
        var status: PurchaseSuggestion.Status
        var answer: String?
    }

    /// `PUT /admin/suggestions/{id}` `{status: open|ordered|declined, answer?}` → 204; it applies to every suggestion
    /// merged into this one. 404 for an unknown or merged suggestion.
    func answer(request: Request, context: PatronRequestContext) async throws -> Response {
        let id = try context.parameters.require("id", as: UUID.self)
        let asked: Answer
        do { asked = try await JSONMessages.decode(Answer.self, from: request) } catch is DecodingError {
            throw Problem.badRequest("status must be open, ordered or declined")
        }
        guard asked.status != .arrived else { throw Problem.badRequest("a suggestion arrives with its book, not by an answer") }
        let answer = asked.answer?.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (answer?.count ?? 0) <= 500 else { throw Problem.badRequest("answer must be at most 500 characters") }
        guard try await suggestions.answer(id: id, status: asked.status, answer: answer?.isEmpty == true ? nil : answer, logger: context.logger)
        else { throw Problem.notFound("No suggestion \(id) (or it was merged into another)") }
        try await audit.record(
            "suggestion-answered",
            staff: PatronAdminController.staff,
            detail: "\(id) \(asked.status.rawValue)",
            logger: context.logger
        )
        return Response(status: .noContent)
    }

    struct Merge: Decodable {
        var into: UUID
    }

    /// `POST /admin/suggestions/{id}/merge` `{into}` → 204: the suggestion (and those merged into it) joins `into`.
    /// 404 unless both are suggestions no other joined, and not the same.
    func merge(request: Request, context: PatronRequestContext) async throws -> Response {
        let id = try context.parameters.require("id", as: UUID.self)
        let merge: Merge
        do { merge = try await JSONMessages.decode(Merge.self, from: request) } catch is DecodingError {
            throw Problem.badRequest("into must be a suggestion's id")
        }
        guard try await suggestions.merge(id: id, into: merge.into, logger: context.logger) else {
            throw Problem.notFound("Suggestions \(id) and \(merge.into) cannot be merged (unknown, merged already, or the same)")
        }
        try await audit.record("suggestion-merged", staff: PatronAdminController.staff, detail: "\(id) into \(merge.into)", logger: context.logger)
        return Response(status: .noContent)
    }
}
