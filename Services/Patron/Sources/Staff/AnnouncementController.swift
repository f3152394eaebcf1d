import Foundation
import Hummingbird
import ServiceSupport
import Shared

/// `/admin/announcements` (admin tokens): the announcements, a new one `{"content", "start", "end"}` (RFC 3339 dates;
/// `start` defaults to now), and withdrawing one (`DELETE /admin/announcements/{id}`). Patrons read the current ones in
/// the authentication document (`AuthController`).
struct AnnouncementController: Sendable {
    let announcements: AnnouncementPostgresRepository

    func add(to admin: RouterGroup<PatronRequestContext>) {
        admin.get(.adminAnnouncements) { _, context in
            try JSONMessages.response(
                ["announcements": try await announcements.list(logger: context.logger)],
                headers: [.cacheControl: "no-store"]
            )
        }
        admin.post(.adminAnnouncements, use: create)
        admin.delete(.adminAnnouncement(.key)) { _, context in
            let id = try context.parameters.require("id", as: UUID.self)
            guard try await announcements.delete(id, staff: PatronAdminController.staff, logger: context.logger) else {
                throw Problem.notFound("No announcement \(id)")
            }
            return Response(status: .noContent)
        }
    }

    struct NewAnnouncement: Decodable {
        var content: String
        var start: Date?
        var end: Date
    }

    func create(request: Request, context: PatronRequestContext) async throws -> Response {
        let body = try await JSONMessages.decode(NewAnnouncement.self, from: request)
        let content = body.content.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...1_000).contains(content.count) else { throw Problem.badRequest("content must be 1 to 1000 characters") }
        let start = body.start ?? Date()
        guard body.end > start else { throw Problem.badRequest("end must come after start") }
        guard body.end.timeIntervalSince(start) <= 366 * 86_400 else { throw Problem.badRequest("an announcement lasts at most a year") }
        let id = try await announcements.create(
            content: content,
            start: start,
            end: body.end,
            staff: PatronAdminController.staff,
            logger: context.logger
        )
        context.logger.info("Announcement made", metadata: ["announcement.id": "\(id)", "staff": "\(PatronAdminController.staff)"])
        return try JSONMessages.response(["id": id.uuidString.lowercased()], status: .created)
    }
}
