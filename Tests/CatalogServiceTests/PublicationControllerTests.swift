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

/// `/books/{id}/publication/...`: the Readium manifest's resources, and who may read them.
extension CatalogServiceTests {
    /// Every resource a manifest lists, fetched at its href, is the archive's entry byte for byte with the manifest's type
    /// (an obfuscated font as the font itself).
    @Test(
        .needsCorpus,
        arguments: ["idpf-wasteland.epub", "epubcheck-ocf-filepath-utf8-valid.epub", "palace-nestedtoc.epub", "idpf-wasteland-woff-obf.epub"]
    )
    func theManifestsResourcesAreServedFromInsideTheArchive(fileName: String) async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            let file = try #require(CorpusBook.all.first { $0.file.lastPathComponent == fileName }).file
            let (_, book) = try await ingest(client, file, query: "?open_access=true")
            let id = try #require(book["id"] as? String)
            try await validate(client, "/books/\(id)/manifest.json", kind: "manifest", json: true)
            let manifest = try await client.execute(uri: "/books/\(id)/manifest.json", method: .get) {
                try #require(try JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any])
            }
            let links = (manifest["readingOrder"] as? [[String: Any]] ?? []) + (manifest["resources"] as? [[String: Any]] ?? [])
            #expect(!links.isEmpty)
            let archive = try Archive(url: file, accessMode: .read)
            let prefix = "http://127.0.0.1:8080/books/\(id)/publication/"
            var served = 0
            for link in links {
                let href = try #require(link["href"] as? String)
                #expect(href.hasPrefix(prefix), "\(href)")
                let path = try #require(String(href.dropFirst(prefix.count)).removingPercentEncoding)
                guard let entry = archive[path] else { continue }  // a dangling manifest item: listed, not in the file
                var expected = Data()
                _ = try archive.extract(entry) { expected.append($0) }
                if path.hasSuffix(".obf.woff") {
                    #expect(expected.prefix(4) != Data("wOFF".utf8))
                    expected = try #require(
                        FontObfuscation(
                            algorithm: FontObfuscation.idpfAlgorithm,
                            uniqueIdentifier: "code.google.com.epub-samples.wasteland-woff-obfuscated"
                        )
                    ).apply(to: expected)
                    #expect(expected.prefix(4) == Data("wOFF".utf8))
                }
                try await client.execute(uri: String(href.dropFirst("http://127.0.0.1:8080".count)), method: .get) { response in
                    #expect(response.status == .ok, "\(href)")
                    #expect(response.headers[.contentType] == link["type"] as? String, "\(href)")
                    #expect(Data(buffer: response.body) == expected, "\(href)")
                }
                served += 1
            }
            #expect(served > links.count / 2)
            // A part of a resource, as a media player seeking would ask for it.
            let first = try #require(links.first?["href"] as? String).dropFirst("http://127.0.0.1:8080".count)
            let whole = try await client.execute(uri: String(first), method: .get) { Data(buffer: $0.body) }
            try await client.execute(uri: String(first), method: .get, headers: [.range: "bytes=10-19"]) { response in
                #expect(response.status == .partialContent)
                #expect(response.headers[.contentRange] == "bytes 10-19/\(whole.count)")
                #expect(Data(buffer: response.body) == whole[10..<20])
            }
            try await client.execute(uri: String(first), method: .get, headers: [.range: "bytes=\(whole.count)-"]) { #expect($0.status.code == 416) }
            // Table-of-contents links land on served resources.
            for entry in manifest["toc"] as? [[String: Any]] ?? [] {
                let href = try #require(entry["href"] as? String).split(separator: "#").first.map(String.init) ?? ""
                #expect(
                    try await client.execute(uri: String(href.dropFirst("http://127.0.0.1:8080".count)), method: .get) { $0.status } == .ok,
                    "\(href)"
                )
            }
            // Only what the package lists: not the container, nothing outside the archive.
            for path in ["META-INF/container.xml", "..%2F..%2Fetc%2Fpasswd", "../../../etc/passwd", "nope.xhtml"] {
                let status = try await client.execute(uri: "/books/\(id)/publication/\(path)", method: .get) { $0.status }
                #expect(status == .notFound || status == .badRequest, "\(path): \(status)")
            }
        }
    }

    @Test(.needsCorpus) func aLentBooksResourcesNeedAnActiveLoan() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            let file = try #require(CorpusBook.all.first { $0.file.lastPathComponent == "idpf-trees.epub" }).file
            let (_, book) = try await ingest(client, file)
            let id = try #require(book["id"] as? String)
            let manifest = try await client.execute(uri: "/books/\(id)/manifest.json", method: .get) {
                try #require(try JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any])
            }
            let first = try #require((manifest["readingOrder"] as? [[String: Any]])?.first?["href"] as? String)
            let status = try await client.execute(uri: String(first.dropFirst("http://127.0.0.1:8080".count)), method: .get) { $0.status }
            #expect(status == .unauthorized)
        }
    }
}
