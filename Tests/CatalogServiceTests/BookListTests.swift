import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceSupport
import Shared
import TestSupport
import Testing

@testable import CatalogService

/// Patrons' own lists and staff lists: the JSON API, who may read which, and the lists as OPDS feeds and lanes.
extension CatalogServiceTests {
    static func patron(_ id: UUID, json: Bool = true) -> HTTPFields {
        var fields: HTTPFields = [
            .serviceToken: TestConfig.serviceToken, .patronID: id.uuidString.lowercased(),
            .patronSignature: PatronIdentity(secret: TestConfig.jwtSecret).signature(for: id),
        ]
        if json { fields[.contentType] = "application/json" }
        return fields
    }
    static let staff: HTTPFields = [.authorization: "Bearer \(TestConfig.adminToken)", .contentType: "application/json"]

    func call(
        _ client: some TestClientProtocol,
        _ method: HTTPRequest.Method,
        _ uri: String,
        _ headers: HTTPFields,
        _ body: String? = nil
    )
        async throws -> (status: HTTPResponse.Status, json: [String: Any])
    {
        try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) { response in
            (response.status, (try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]) ?? [:])
        }
    }

    func listTitles(_ client: some TestClientProtocol, _ uri: String, _ headers: HTTPFields = [:]) async throws -> [String] {
        var headers = headers
        headers[.accept] = "application/opds+json"
        let feed = try await client.execute(uri: uri, method: .get, headers: headers) { response in
            #expect(response.status == .ok, "\(uri)")
            return (try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]) ?? [:]
        }
        return (feed["publications"] as? [[String: Any]] ?? []).compactMap { ($0["metadata"] as? [String: Any])?["title"] as? String }
    }

    @Test func aPatronsListIsCreatedRenamedReorderedAndDeletedAndPrivateUntilMadePublic() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            var books: [String: String] = [:]
            for title in ["Alpha", "Beta", "Gamma"] {
                books[title] = try await ingest(client, try MinimalEPUB.write(title: title, author: "A. Writer")).1["id"] as? String
            }
            let (ann, bob) = (UUID(), UUID())
            let created = try await call(client, .post, "/me/lists", Self.patron(ann), #"{"title": "  To read  ", "description": "Summer"}"#)
            #expect(created.status == .created)
            #expect(created.json["title"] as? String == "To read" && created.json["public"] as? Bool == false)
            let id = try #require(created.json["id"] as? String)
            let feed = "/opds/lists/\(id)"
            #expect(created.json["feedUrl"] as? String == "http://127.0.0.1:8080" + feed)

            // Books in order, then reordered; a book twice, an unknown book, a bad body: refused, nothing changes.
            #expect(
                try await call(client, .put, "/me/lists/\(id)/books", Self.patron(ann), #"{"books": ["\#(books["Gamma"]!)", "\#(books["Alpha"]!)"]}"#)
                    .status == .ok
            )
            #expect(try await call(client, .post, "/me/lists/\(id)/books", Self.patron(ann), #"{"bookId": "\#(books["Beta"]!)"}"#).status == .created)
            #expect(try await call(client, .post, "/me/lists/\(id)/books", Self.patron(ann), #"{"bookId": "\#(books["Beta"]!)"}"#).status == .ok)
            #expect(try await listTitles(client, feed, Self.patron(ann, json: false)) == ["Gamma", "Alpha", "Beta"])
            #expect(
                try await call(client, .put, "/me/lists/\(id)/books", Self.patron(ann), #"{"books": ["\#(books["Beta"]!)", "\#(books["Beta"]!)"]}"#)
                    .status == .badRequest
            )
            let unknown = try await call(client, .put, "/me/lists/\(id)/books", Self.patron(ann), #"{"books": ["\#(UUID())"]}"#)
            #expect(unknown.status == .unprocessableContent && (unknown.json["type"] as? String)?.hasSuffix("unknown-books") == true)
            #expect(try await call(client, .put, "/me/lists/\(id)/books", Self.patron(ann), #"{"books": "x"}"#).status == .badRequest)
            #expect(
                try await call(
                    client,
                    .put,
                    "/me/lists/\(id)/books",
                    Self.patron(ann),
                    #"{"books": ["\#(books["Beta"]!)", "\#(books["Alpha"]!)", "\#(books["Gamma"]!)"]}"#
                ).status == .ok
            )
            #expect(try await listTitles(client, feed, Self.patron(ann, json: false)) == ["Beta", "Alpha", "Gamma"])
            // Paged by position.
            var paged = Self.patron(ann, json: false)
            paged[.accept] = "application/opds+json"
            let first = try await client.execute(uri: feed + "?size=2", method: .get, headers: paged) {
                (try? JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any]) ?? [:]
            }
            let next = try #require((first["links"] as? [[String: Any]])?.first { $0["rel"] as? String == "next" }?["href"] as? String)
            #expect(try await listTitles(client, String(next.dropFirst("http://127.0.0.1:8080".count)), Self.patron(ann, json: false)) == ["Gamma"])

            // Private: another patron and anonymous visitors find nothing, not even in the API.
            #expect(try await client.execute(uri: feed, method: .get) { $0.status } == .notFound)
            #expect(try await client.execute(uri: feed, method: .get, headers: Self.patron(bob, json: false)) { $0.status } == .notFound)
            #expect(try await call(client, .get, "/me/lists/\(id)", Self.patron(bob)).status == .notFound)
            #expect(try await call(client, .patch, "/me/lists/\(id)", Self.patron(bob), #"{"title": "Mine now"}"#).status == .notFound)
            #expect(try await call(client, .get, "/me/lists", [:]).status == .unauthorized)
            #expect((try await call(client, .get, "/me/lists", Self.patron(bob)).json["lists"] as? [Any])?.isEmpty == true)

            // Renamed and made public: readable by anyone with the link, as OPDS 1.2 and 2.0.
            let renamed = try await call(client, .patch, "/me/lists/\(id)", Self.patron(ann), #"{"title": "Holiday reading", "public": true}"#)
            #expect(renamed.status == .ok && renamed.json["title"] as? String == "Holiday reading" && renamed.json["bookCount"] as? Int == 3)
            #expect(try await call(client, .patch, "/me/lists/\(id)", Self.patron(ann), #"{"title": ""}"#).status == .badRequest)
            #expect(
                try await call(client, .patch, "/me/lists/\(id)", Self.patron(ann), #"{"featured": true}"#).status == .badRequest,
                "only staff lists"
            )
            #expect(try await listTitles(client, feed) == ["Beta", "Alpha", "Gamma"])
            try await validate(client, feed, kind: "atom")
            try await validate(client, feed, kind: "feed", json: true)
            let mine = try await call(client, .get, "/me/lists/\(id)", Self.patron(ann))
            #expect((mine.json["books"] as? [String])?.count == 3)

            #expect(try await call(client, .delete, "/me/lists/\(id)/books/\(books["Alpha"]!)", Self.patron(ann)).status == .noContent)
            #expect(try await listTitles(client, feed) == ["Beta", "Gamma"])
            #expect(try await call(client, .delete, "/me/lists/\(id)", Self.patron(bob)).status == .notFound)
            #expect(try await call(client, .delete, "/me/lists/\(id)", Self.patron(ann)).status == .noContent)
            #expect(try await client.execute(uri: feed, method: .get) { $0.status } == .notFound)
        }
    }

    @Test func aFeaturedStaffListIsALaneOfTheRootAndGroupedFeeds() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            let book = try #require(try await ingest(client, try MinimalEPUB.write(title: "Staff Favourite")).1["id"] as? String)
            #expect(try await call(client, .post, "/admin/lists", [.contentType: "application/json"], #"{"title": "x"}"#).status == .unauthorized)
            let list = try await call(client, .post, "/admin/lists", Self.staff, #"{"title": "Winter warmers", "description": "Cosy books"}"#)
            #expect(list.status == .created && list.json["public"] as? Bool == true)
            let id = try #require(list.json["id"] as? String)
            #expect(try await call(client, .put, "/admin/lists/\(id)/books", Self.staff, #"{"books": ["\#(book)"]}"#).status == .ok)
            func rootTitles() async throws -> [String] {
                let root = try await client.execute(uri: "/opds", method: .get, headers: [.accept: "application/opds+json"]) {
                    (try? JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any]) ?? [:]
                }
                return (root["navigation"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
            }
            #expect(!(try await rootTitles()).contains("Winter warmers"), "not featured yet")
            #expect(try await call(client, .patch, "/admin/lists/\(id)", Self.staff, #"{"featured": true}"#).status == .ok)
            #expect(try await rootTitles().contains("Winter warmers"))
            let groups = try await client.execute(uri: "/opds/groups", method: .get, headers: [.accept: "application/opds+json"]) {
                (try? JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any]) ?? [:]
            }
            let titles = (groups["groups"] as? [[String: Any]] ?? []).compactMap { ($0["metadata"] as? [String: Any])?["title"] as? String }
            #expect(titles.contains("Winter warmers"))
            try await validate(client, "/opds", kind: "atom")
            try await validate(client, "/opds/groups", kind: "feed", json: true)
            #expect((try await call(client, .get, "/admin/lists", Self.staff).json["lists"] as? [[String: Any]])?.count == 1)
            // A patron's list is not the staff's.
            #expect(try await call(client, .patch, "/me/lists/\(id)", Self.patron(UUID()), #"{"title": "Mine"}"#).status == .notFound)
        }
    }

    @Test func aPrivateStaffListMarkedFeaturedAppearsInNoFeed() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            let book = try #require(try await ingest(client, try MinimalEPUB.write(title: "Unreleased Draft")).1["id"] as? String)
            let list = try await call(
                client,
                .post,
                "/admin/lists",
                Self.staff,
                #"{"title": "Staff only", "public": false, "featured": true}"#
            )
            #expect(list.status == .created && list.json["public"] as? Bool == false && list.json["featured"] as? Bool == true)
            let id = try #require(list.json["id"] as? String)
            #expect(try await call(client, .put, "/admin/lists/\(id)/books", Self.staff, #"{"books": ["\#(book)"]}"#).status == .ok)
            for (uri, accept) in [
                ("/opds", "application/opds+json"), ("/opds/groups", "application/opds+json"), ("/opds", "application/atom+xml"),
                ("/opds/groups", "application/atom+xml"),
            ] {
                let body = try await client.execute(uri: uri, method: .get, headers: [.accept: accept]) { String(buffer: $0.body) }
                #expect(!body.contains("Staff only") && !body.contains("\(id)"), "\(uri) as \(accept) shows the private list")
            }
            #expect(try await client.execute(uri: "/opds/lists/\(id)", method: .get) { $0.status } == .notFound)
            // Made public, it is the lane it was featured as.
            #expect(try await call(client, .patch, "/admin/lists/\(id)", Self.staff, #"{"public": true}"#).status == .ok)
            let root = try await client.execute(uri: "/opds", method: .get, headers: [.accept: "application/opds+json"]) { String(buffer: $0.body) }
            #expect(root.contains("Staff only"))
        }
    }
}
