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

/// Audiobooks and PDFs (issue 69): ingested through the same endpoint as EPUBs, described in feeds and Readium
/// manifests that the schemas and Palace's parser accept, and served with byte ranges.
extension CatalogServiceTests {
    private func json(_ client: some TestClientProtocol, _ uri: String, accept: String = "application/json") async throws -> [String: Any] {
        try await client.execute(uri: uri, method: .get, headers: [.accept: accept]) { response in
            #expect(response.status == .ok, "\(uri)")
            return try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any], "\(uri)")
        }
    }

    private func checkManifest(_ client: some TestClientProtocol, _ id: String) async throws -> [String: Any] {
        try await validate(client, "/books/\(id)/manifest.json", kind: "manifest", json: true)
        try await validate(client, "/opds/books/\(id)", kind: "publication", json: true)
        try await validate(client, "/opds/books/\(id)", kind: "atom")
        let manifest = try await client.execute(uri: "/books/\(id)/manifest.json", method: .get) { Data(buffer: $0.body) }
        let publication = try await client.execute(uri: "/opds/books/\(id)", method: .get, headers: [.accept: "application/opds+json"]) {
            Data(buffer: $0.body)
        }
        #expect(try await PalaceParser.problems(in: [manifest], kind: "manifest") == nil)
        #expect(try await PalaceParser.problems(in: [publication], kind: "publication") == nil)
        return try #require(try JSONSerialization.jsonObject(with: manifest) as? [String: Any])
    }

    @Test func anM4BWithChaptersIsLentAsAnAudiobookWithItsChapters() async throws {
        let file = try await TestTools.generatedMedia("m4b", ["--chapters", "3", "--seconds", "20", "--cover"])
        let (app, _) = try await app()
        try await app.testRouter { client in
            let (status, book) = try await ingest(client, file, query: "?open_access=true")
            #expect(status == .created, "\(book)")
            let id = try #require(book["id"] as? String)
            #expect((book["book"] as? [String: Any])?["format"] as? String == "audiobook")
            #expect(((book["book"] as? [String: Any])?["duration"] as? Double).map { abs($0 - 60) < 0.5 } == true, "\(book)")
            #expect(book["title"] as? String == "A Generated Audiobook")
            #expect((book["book"] as? [String: Any])?["coverSource"] as? String == "epub", "the M4B's own picture is its cover")

            let manifest = try await checkManifest(client, id)
            let metadata = try #require(manifest["metadata"] as? [String: Any])
            #expect(metadata["conformsTo"] as? String == "https://readium.org/webpub-manifest/profiles/audiobook")
            #expect(metadata["@type"] as? String == "http://schema.org/Audiobook")
            #expect(metadata["narrator"] as? [String] == ["Nora Reader"])
            let tracks = try #require(manifest["readingOrder"] as? [[String: Any]])
            #expect(tracks.count == 1)
            #expect(tracks.first?["type"] as? String == "audio/mp4")
            let toc = try #require(manifest["toc"] as? [[String: Any]])
            #expect(toc.map { $0["title"] as? String } == ["Chapter 1", "Chapter 2", "Chapter 3"])
            let track = try #require(tracks.first?["href"] as? String)
            #expect(toc.compactMap { $0["href"] as? String } == [track, track + "#t=20", track + "#t=40"])
            try await client.execute(uri: "/books/\(id)/manifest.json", method: .get) { response in
                #expect(response.headers[.contentType] == "application/audiobook+json")
            }

            let publication = try await json(client, "/opds/books/\(id)", accept: "application/opds+json")
            let entryMetadata = try #require(publication["metadata"] as? [String: Any])
            #expect(entryMetadata["@type"] as? String == "http://schema.org/Audiobook")
            #expect((entryMetadata["duration"] as? Double).map { abs($0 - 60) < 0.5 } == true)
            #expect((entryMetadata["narrator"] as? [[String: Any]])?.first?["name"] as? String == "Nora Reader")
            let links = try #require(publication["links"] as? [[String: Any]])
            #expect(links.contains { $0["type"] as? String == "application/audiobook+json" })
            #expect(links.contains { $0["type"] as? String == "application/audiobook+zip" })

            // The track, with a range, is the M4B's own bytes: the package stores it uncompressed.
            let original = try Data(contentsOf: file)
            let path = String(track.dropFirst("http://127.0.0.1:8080".count))
            try await client.execute(uri: path, method: .get, headers: [.range: "bytes=1000-1999"]) { response in
                #expect(response.status == .partialContent)
                #expect(response.headers[.contentType] == "audio/mp4")
                #expect(Data(buffer: response.body) == original[1000..<2000])
            }
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .ok)
                #expect(Data(buffer: response.body) == original)
            }
            // The package downloads as one file, and the same upload again changes nothing.
            try await client.execute(uri: "/books/\(id)/fulfill", method: .get) { response in
                #expect(response.headers[.contentType] == "application/audiobook+zip")
                #expect(response.headers[.contentDisposition]?.hasSuffix(".audiobook\"") == true)
            }
            let (again, same) = try await ingest(client, file, query: "?open_access=true")
            #expect(again == .ok)
            #expect(same["id"] as? String == id)
        }
    }

    @Test func aZipOfMP3TracksIsPlayedInTheOrderOfItsTags() async throws {
        let file = try await TestTools.generatedMedia("mp3zip", ["--tracks", "3", "--seconds", "4", "--title", "Tracks Book"])
        let (app, _) = try await app()
        try await app.testRouter { client in
            let (status, book) = try await ingest(client, file, query: "?open_access=true")
            #expect(status == .created, "\(book)")
            let id = try #require(book["id"] as? String)
            #expect(book["title"] as? String == "Tracks Book")
            #expect(book["authors"] as? [String] == ["Ada Tone"])
            let manifest = try await checkManifest(client, id)
            let tracks = try #require(manifest["readingOrder"] as? [[String: Any]])
            #expect(tracks.map { $0["title"] as? String } == ["Part 1", "Part 2", "Part 3"], "ID3 track numbers, not the files' names")
            #expect(tracks.allSatisfy { $0["type"] as? String == "audio/mpeg" && ($0["duration"] as? Double ?? 0) > 3.5 })
            #expect((manifest["toc"] as? [[String: Any]])?.count == 3)
            for track in tracks {
                let path = String((track["href"] as? String ?? "").dropFirst("http://127.0.0.1:8080".count))
                try await client.execute(uri: path, method: .get, headers: [.range: "bytes=0-2"]) { response in
                    #expect(response.status == .partialContent)
                    #expect(Data(buffer: response.body) == Data("ID3".utf8))
                }
            }
        }
    }

    @Test func aReadiumAudiobookPackageKeepsItsOrderMetadataAndContents() async throws {
        let file = try await TestTools.generatedMedia("package", ["--tracks", "3", "--seconds", "4", "--title", "Packaged Tones"])
        let (app, _) = try await app()
        try await app.testRouter { client in
            let (status, book) = try await ingest(client, file, query: "?open_access=true")
            #expect(status == .created, "\(book)")
            let id = try #require(book["id"] as? String)
            #expect(book["title"] as? String == "Packaged Tones")
            let manifest = try await checkManifest(client, id)
            let metadata = try #require(manifest["metadata"] as? [String: Any])
            #expect(metadata["narrator"] as? [String] == ["Nora Reader"])
            #expect(metadata["language"] as? String == "en")
            let tracks = try #require(manifest["readingOrder"] as? [[String: Any]])
            #expect(
                tracks.compactMap { ($0["href"] as? String)?.split(separator: "/").last.map(String.init) } == [
                    "track-001.mp3", "track-002.mp3", "track-003.mp3",
                ]
            )
            // The package's order (c, b, a by name), not the names': track 1 is the lowest tone, as the package made it.
            let toc = try #require(manifest["toc"] as? [[String: Any]])
            #expect(toc.map { $0["title"] as? String } == ["Opening", "Part 2", "Part 3"])
            let child = try #require((toc.first?["children"] as? [[String: Any]])?.first)
            #expect((child["href"] as? String)?.hasSuffix("/track-001.mp3#t=2") == true, "\(child)")
        }
    }

    @Test func aFolderOfMP3TracksIngestedInBulkIsOneAudiobook() async throws {
        let zip = try await TestTools.generatedMedia("mp3zip", ["--tracks", "3", "--seconds", "4", "--title", "Folder Tones"])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tracks-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let tracks = folder.appendingPathComponent("Folder Tones")
        try FileManager.default.createDirectory(at: tracks, withIntermediateDirectories: true)
        let archive = try Archive(url: zip, accessMode: .read)
        for entry in archive {
            _ = try archive.extract(entry, to: tracks.appendingPathComponent(entry.path.split(separator: "/").last.map(String.init) ?? "x.mp3"))
        }
        let config = TestConfig.base(["CATALOG_DATABASE_URL": try await TestDatabase.create(prefix: "catalog"), "BLOB_DIR": blobs.path])
        let summary = try await BulkIngest.run(paths: [folder.path], copies: 1, openAccess: true, concurrency: 1, config: config)
        #expect(summary.ingested == 1 && summary.refused.isEmpty, "\(summary.refused)")
        let app = try await buildCatalogApplication(config: config)
        try await app.testRouter { client in
            let lane = try await json(client, "/opds/lanes/new?format=audiobook", accept: "application/opds+json")
            let publication = try #require((lane["publications"] as? [[String: Any]])?.first)
            #expect((publication["metadata"] as? [String: Any])?["title"] as? String == "Folder Tones")
            let link = try #require((publication["links"] as? [[String: Any]])?.first { $0["rel"] as? String == "self" }?["href"] as? String)
            let id = String(link.split(separator: "/").last ?? "")
            let manifest = try await checkManifest(client, id)
            #expect((manifest["readingOrder"] as? [[String: Any]])?.map { $0["title"] as? String } == ["Part 1", "Part 2", "Part 3"])
        }
    }

    /// The bounds and refusals of audiobooks, on the packager itself: tracks, hours, a package's order naming a file it
    /// lacks, a folder without audio.
    @Test func anAudiobookPastItsBoundsOrWithoutItsTracksIsRefused() async throws {
        let zip = try await TestTools.generatedMedia("mp3zip", ["--tracks", "3", "--seconds", "4", "--title", "Bounded Tones"])
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("packager-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        func refusal(_ limits: AudiobookPackager.Limits, _ file: URL, _ kind: UploadKind) -> MediaError? {
            do {
                _ = try AudiobookPackager(limits: limits, work: work).package(file, kind: kind)
                return nil
            } catch {
                return error as? MediaError
            }
        }
        #expect(refusal(AudiobookPackager.Limits(maxTracks: 2), zip, .audioArchive) == .tooManyTracks(3, limit: 2))
        #expect(refusal(AudiobookPackager.Limits(maxHours: 0), zip, .audioArchive) == .tooLong(hours: 0, limit: 0))
        #expect(refusal(AudiobookPackager.Limits(), zip, .audioArchive) == nil, "within its bounds it is packaged")
        let empty = work.appendingPathComponent("no tracks")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(refusal(AudiobookPackager.Limits(), empty, .audioFolder) == .noAudio)
        // A package whose reading order names a track it does not hold.
        let package = work.appendingPathComponent("broken.audiobook")
        let archive = try Archive(url: package, accessMode: .create)
        let manifest = Data(#"{"metadata": {"title": "Broken"}, "readingOrder": [{"href": "missing.mp3"}]}"#.utf8)
        try archive.addEntry(with: "manifest.json", type: .file, uncompressedSize: Int64(manifest.count)) { position, size in
            manifest.subdata(in: Int(position)..<Int(position) + size)
        }
        #expect(try UploadKind.of(package) == .audiobookPackage)
        guard case .badPackage? = refusal(AudiobookPackager.Limits(), package, .audiobookPackage) else {
            Issue.record("a package naming a missing track is not refused as a bad package")
            return
        }
    }

    @Test func bulkIngestFindsEveryKindOfBookAndTakesAFolderOfTracksAsOne() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("bulk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let tracks = root.appendingPathComponent("shelf/An Audiobook")
        try FileManager.default.createDirectory(at: tracks.appendingPathComponent("extras"), withIntermediateDirectories: true)
        for name in ["shelf/a.epub", "shelf/b.PDF", "shelf/c.m4b", "shelf/d.audiobook", "shelf/notes.txt", "An Audiobook/01.mp3"] {
            let path =
                name.hasPrefix("An ")
                ? tracks.appendingPathComponent(String(name.dropFirst("An Audiobook/".count))) : root.appendingPathComponent(name)
            FileManager.default.createFile(atPath: path.path, contents: Data("x".utf8))
        }
        FileManager.default.createFile(atPath: tracks.appendingPathComponent("extras/e.epub").path, contents: Data("x".utf8))
        let found = BulkIngest.collect([root.path]).map { String($0.path.dropFirst(root.path.count + 1)) }
        #expect(found == ["shelf/An Audiobook", "shelf/a.epub", "shelf/b.PDF", "shelf/c.m4b", "shelf/d.audiobook"])
    }

    @Test func aPDFIsLentAsUploadedWithItsOutlineAndPagesDrawnForTheWebReader() async throws {
        let file = try await TestTools.generatedMedia("pdf", ["--pages", "5", "--title", "A Local History"])
        let (app, _) = try await app()
        try await app.testRouter { client in
            let (status, book) = try await ingest(client, file, query: "?open_access=true")
            #expect(status == .created, "\(book)")
            let id = try #require(book["id"] as? String)
            #expect((book["book"] as? [String: Any])?["format"] as? String == "pdf")
            #expect((book["book"] as? [String: Any])?["pageCount"] as? Int == 5)
            #expect(book["title"] as? String == "A Local History")
            #expect((book["book"] as? [String: Any])?["coverSource"] as? String == "epub", "the first page is the cover")
            let manifest = try await checkManifest(client, id)
            #expect((manifest["metadata"] as? [String: Any])?["conformsTo"] as? String == "https://readium.org/webpub-manifest/profiles/pdf")
            let order = try #require(manifest["readingOrder"] as? [[String: Any]])
            #expect(order.map { $0["type"] as? String } == ["application/pdf"])
            let toc = try #require(manifest["toc"] as? [[String: Any]])
            #expect(toc.map { $0["title"] as? String } == (1...5).map { "Section \($0)" })
            #expect((toc[1]["children"] as? [[String: Any]])?.first?["title"] as? String == "Section 2.1")
            #expect((toc[2]["href"] as? String)?.hasSuffix("/publication/book.pdf#page=3") == true)

            let original = try Data(contentsOf: file)
            try await client.execute(uri: "/books/\(id)/fulfill", method: .get) { response in
                #expect(response.headers[.contentType] == "application/pdf")
                #expect(Data(buffer: response.body) == original)
            }
            try await client.execute(uri: "/books/\(id)/publication/book.pdf", method: .get, headers: [.range: "bytes=0-4"]) { response in
                #expect(response.status == .partialContent)
                #expect(Data(buffer: response.body) == Data("%PDF-".utf8))
            }
            try await client.execute(uri: "/books/\(id)/publication/pages/2.png?width=400", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
                #expect(Data(buffer: response.body).prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
            }
            try await client.execute(uri: "/books/\(id)/publication/pages/6.png", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/books/\(id)/publication/pages/2.png?width=5", method: .get) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/books/\(id)/publication/other.pdf", method: .get) { #expect($0.status == .notFound) }
        }
    }

    @Test func brokenAudioAndPDFsAreRefusedAndChangeNothing() async throws {
        let m4b = try await TestTools.generatedMedia("m4b", ["--chapters", "2", "--seconds", "5"])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("broken-media-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let truncated = folder.appendingPathComponent("truncated.m4b")
        try Data(contentsOf: m4b).prefix(600).write(to: truncated)
        let fakePDF = folder.appendingPathComponent("fake.pdf")
        try Data("%PDF-1.4\nnot a PDF at all\n".utf8).write(to: fakePDF)
        let fakeMP3 = folder.appendingPathComponent("fake.mp3")
        try (Data("ID3".utf8) + Data(repeating: 7, count: 3000)).write(to: fakeMP3)
        let (app, _) = try await app()
        try await app.testRouter { client in
            for (file, slug) in [(truncated, "unreadable-audio"), (fakePDF, "unreadable-pdf"), (fakeMP3, "unreadable-audio")] {
                let (status, problem) = try await ingest(client, file)
                #expect(status == .unprocessableContent, "\(file.lastPathComponent): \(problem)")
                #expect((problem["type"] as? String)?.hasSuffix(slug) == true, "\(file.lastPathComponent): \(problem)")
            }
            try await client.execute(uri: "/admin/books", method: .get, headers: Self.admin) { response in
                let list = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                #expect((list?["books"] as? [Any])?.isEmpty == true, "no book was written")
            }
        }
    }
}
