import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceSupport
import Shared
import TestSupport
import Testing
import ZIPFoundation

@testable import CatalogService

/// Search by misspelled title, surname and ISBN, and hostile queries.
extension CatalogServiceTests {
    @Test(.needsCorpus) func searchFindsByMisspelledTitleSurnameAndISBNAndSurvivesHostileQueries() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            for name in [
                "otc-moby.epub", "otc-swann.epub", "idpf-wasteland.epub", "palace-charles-dickens_great-expectations.epub",
                "gutenberg-pg11-alice.epub",
            ] {
                _ = try await ingest(client, CorpusBook.all.first { $0.file.lastPathComponent == name }!.file)
            }
            func first(_ query: String) async throws -> String? {
                let body = try await client.execute(uri: "/opds/search?\(query)", method: .get, headers: [.accept: "application/opds+json"]) {
                    Data(buffer: $0.body)
                }
                let document = try JSONSerialization.jsonObject(with: body) as? [String: Any]
                return ((document?["publications"] as? [[String: Any]])?.first?["metadata"] as? [String: Any])?["title"] as? String
            }
            #expect(try await first("q=Moby") == "Moby-Dick")
            #expect(try await first("q=expectatons") == "Great Expectations")
            #expect(try await first("q=cote%20swann") == "Du côté de chez Swann")
            #expect(try await first("q=Dickens") == "Great Expectations")
            // OPDS 2.0 apps expand the feeds' templated search link, `/opds/search{?query}`.
            let root = try await client.execute(uri: "/opds", method: .get, headers: [.accept: "application/opds+json"]) { Data(buffer: $0.body) }
            let links = try #require((try JSONSerialization.jsonObject(with: root) as? [String: Any])?["links"] as? [[String: Any]])
            let search = try #require(links.first { $0["rel"] as? String == "search" })
            #expect(search["templated"] as? Bool == true)
            #expect((search["href"] as? String)?.hasSuffix("/opds/search{?query}") == true)
            #expect(try await first("query=Moby") == "Moby-Dick")
            // The next page repeats the query as it was sent, still percent-encoded ("&" and spaces included).
            let atom = try await client.execute(uri: "/opds/search?q=the%20%26&size=1", method: .get) { String(buffer: $0.body) }
            #expect(atom.contains("/opds/search?q=the%20%26&amp;size=1&amp;page=2\""))
            for hostile in [
                "q=%27%3B%20DROP%20TABLE%20books%3B--", "q=%28%28%28%21%21", "q=a%3A*%20%26%20%7C", "q=%00",
                "q=" + String(repeating: "x", count: 900), "q=%F0%9F%93%9A",
            ] {
                let status = try await client.execute(uri: "/opds/search?\(hostile)", method: .get) { $0.status }
                #expect(status == .ok || status == .badRequest, "\(hostile)")
            }
        }
    }
}
