import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import TestSupport
import Testing

@testable import CatalogService

/// The operator console's book list (withdrawn books too, newest first, found by title or author, paged by keyset)
/// and its dashboard figures.
extension CatalogServiceTests {
    func adminJSON(_ client: some TestClientProtocol, _ uri: String) async throws -> [String: Any] {
        let body = try await client.execute(uri: uri, method: .get, headers: Self.admin) { response in
            #expect(response.status == .ok, "\(uri)")
            return Data(buffer: response.body)
        }
        return try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
    }

    @Test func theConsoleListsEveryBookNewestFirstPagesWithoutRepeatsAndCountsThem() async throws {
        let (app, _) = try await app()
        let files = try await generatedBooks(7, seed: 11)
        try await app.testRouter { client in
            var ids: [String] = []
            for file in files { ids.append(try #require(try await ingest(client, file, query: "?copies=2").1["id"] as? String)) }
            let status = try await client.execute(uri: "/admin/books/\(ids[0])", method: .delete, headers: Self.admin) { $0.status }
            #expect(status == .noContent)

            #expect(try await client.execute(uri: "/admin/books", method: .get) { $0.status } == .unauthorized)
            #expect(try await client.execute(uri: "/admin/books?size=0", method: .get, headers: Self.admin) { $0.status } == .badRequest)
            #expect(try await client.execute(uri: "/admin/books?after=nope", method: .get, headers: Self.admin) { $0.status } == .badRequest)

            // Three pages of three: every book once, newest first, the withdrawn one marked.
            var seen: [[String: Any]] = []
            var next: String? = nil
            repeat {
                let page = try await adminJSON(client, "/admin/books?size=3" + (next.map { "&after=\($0)" } ?? ""))
                seen += page["books"] as? [[String: Any]] ?? []
                next = page["next"] as? String
            } while next != nil
            #expect(seen.compactMap { $0["id"] as? String } == ids.reversed())
            #expect(seen.last?["withdrawn"] as? Bool == true)

            // Found by a word of the title, or of an author, whatever its case; `%` is a character, not a wildcard.
            let first = seen[0]
            let title = try #require(first["title"] as? String)
            let word = try #require(title.split(separator: " ").max { $0.count < $1.count }).uppercased()
            let byTitle = try await adminJSON(client, "/admin/books?q=\(word.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            #expect((byTitle["books"] as? [[String: Any]] ?? []).contains { $0["id"] as? String == first["id"] as? String })
            let author = try #require((first["authors"] as? [String])?.first)
            let byAuthor = try await adminJSON(client, "/admin/books?q=\(author.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            #expect((byAuthor["books"] as? [[String: Any]] ?? []).contains { $0["id"] as? String == first["id"] as? String })
            #expect((try await adminJSON(client, "/admin/books?q=%25")["books"] as? [Any])?.isEmpty == true)

            let figures = try await adminJSON(client, "/admin/figures")
            #expect(figures["books"] as? Int == 6 && figures["withdrawn"] as? Int == 1)
            #expect(figures["copies"] as? Int == 12 && figures["copiesLent"] as? Int == 0)
            #expect(figures["addedToday"] as? Int == 7 && figures["addedThisWeek"] as? Int == 7)
        }
    }
}
