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

/// The whole corpus through `POST /admin/books`: every EPUB ingested or refused with a problem document, every feed valid.
extension CatalogServiceTests {
    @Test(.needsCorpus) func theWholeCorpusIngestsOrIsRefusedAndFeedsValidate() async throws {
        let (app, blobs) = try await app()
        try await app.testRouter { client in
            var ids: [String] = []
            for book in CorpusBook.all {
                let (status, body) = try await ingest(client, book.file, query: "?copies=2")
                if book.shouldIngest.hasPrefix("yes") {
                    #expect(status == .created || status == .ok, "\(book): \(status) \(body["detail"] ?? "")")
                    if status == .created { #expect(body["title"] as? String == book.title.collapsingWhitespace, "\(book)") }
                    if let id = body["id"] as? String { ids.append(id) }
                } else if book.shouldIngest == "no" {
                    #expect(status == .unprocessableContent, "\(book): \(status)")
                    #expect((body["type"] as? String)?.hasPrefix(Problem.typeBase) == true)
                } else {
                    #expect(status.code < 500, "\(book): \(status)")
                }
            }
            // The same file again is 200 with the same book.
            let again = try await ingest(client, CorpusBook.all.first { $0.shouldIngest == "yes" }!.file)
            #expect(again.0 == .ok)
            #expect(again.1["outcome"] as? String == "unchanged")
            // Refused files left no blob behind: one EPUB blob per book plus covers.
            let stored =
                FileManager.default.enumerator(at: blobs, includingPropertiesForKeys: nil)?.allObjects.compactMap { $0 as? URL }
                .filter { !$0.hasDirectoryPath && !$0.lastPathComponent.hasPrefix(".") } ?? []
            #expect(stored.count >= Set(ids).count)

            let id = try #require(ids.first)
            try await validate(client, "/opds", kind: "atom")
            try await validate(client, "/opds", kind: "feed", json: true)
            try await validate(client, "/opds/groups", kind: "atom")
            try await validate(client, "/opds/groups", kind: "feed", json: true)
            try await validate(client, "/opds/lanes/new?size=5", kind: "atom")
            try await validate(client, "/opds/lanes/new?size=5", kind: "feed", json: true)
            try await validate(client, "/opds/search?q=waste", kind: "atom")
            try await validate(client, "/opds/search?q=waste", kind: "feed", json: true)
            // Empty listings are valid too (OPDS 2.0 wants one non-empty collection: they offer the way back).
            try await validate(client, "/opds/search?q=zzqxjvw", kind: "atom")
            try await validate(client, "/opds/search?q=zzqxjvw", kind: "feed", json: true)
            try await validate(client, "/opds/lanes/staff-picks", kind: "feed", json: true)
            try await validate(client, "/opds/books/\(id)", kind: "atom")
            try await validate(client, "/opds/books/\(id)", kind: "publication", json: true)
            var manifests: [Data] = []
            for id in Set(ids) {
                manifests.append(try await client.execute(uri: "/books/\(id)/manifest.json", method: .get) { Data(buffer: $0.body) })
            }
            let problems = try await OPDSValidator.problems(in: manifests, kind: "manifest")
            #expect(problems == nil, "every book's manifest is valid: \(problems ?? "")")
        }
    }
}
