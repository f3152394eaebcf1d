import Foundation
import Hummingbird
import ServiceSupport
import Shared

/// `/admin/collections` (admin tokens): OPDS 1.2 or 2.0 feeds of open-access books to import. `POST {"name", "url",
/// "username"?, "password"?}` registers one; `POST /admin/collections/{id}/run` asks for a run (the runner takes it
/// within `STAFF_JOB_INTERVAL`); `GET` shows each collection's last run: status, pages read, entries seen, books added
/// and withdrawn, errors. The password is never answered.
struct OPDSImportController: Sendable {
    let collections: OPDSCollectionPostgresRepository

    func add(to admin: RouterGroup<CatalogRequestContext>) {
        admin.get(.opdsCollections) { _, context in
            try JSONMessages.response(["collections": try await collections.all(logger: context.logger)], headers: [.cacheControl: "no-store"])
        }
        admin.post(.opdsCollections, use: create)
        admin.get(.opdsCollection(.key)) { _, context in try await answer(try context.uuid("id"), context: context) }
        admin.post(.opdsCollectionRun(.key)) { _, context in
            let id = try context.uuid("id")
            guard try await collections.requestRun(id, logger: context.logger) else { throw Problem.notFound("No collection \(id)") }
            return try await answer(id, context: context, status: .accepted)
        }
    }

    struct NewCollection: Decodable {
        var name: String
        var url: String
        var username: String?
        var password: String?
    }

    func create(request: Request, context: CatalogRequestContext) async throws -> Response {
        let body = try await JSONMessages.decode(NewCollection.self, from: request)
        let name = body.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...200).contains(name.count) else { throw Problem.badRequest("name must have 1 to 200 characters") }
        guard let url = URL(string: body.url), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw Problem.badRequest("url must be an http or https URL of an OPDS feed")
        }
        if body.password != nil && body.username == nil { throw Problem.badRequest("a password needs a username") }
        let id = try await collections.create(
            name: name,
            url: url.absoluteString,
            username: body.username,
            password: body.password,
            logger: context.logger
        )
        context.logger.info("OPDS collection registered", metadata: ["collection.id": "\(id)", "staff": "\(AdminCaller.name ?? "admin")"])
        return try await answer(id, context: context, status: .created)
    }

    func answer(_ id: UUID, context: CatalogRequestContext, status: HTTPResponse.Status = .ok) async throws -> Response {
        guard let collection = try await collections.find(id, logger: context.logger) else { throw Problem.notFound("No collection \(id)") }
        return try JSONMessages.response(collection, status: status, headers: [.cacheControl: "no-store"])
    }
}
