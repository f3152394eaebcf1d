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

/// `/books/{id}/...`: downloads, covers and thumbnails.
extension CatalogServiceTests {
    @Test(.needsCorpus) func downloadsNeedALoanUnlessOpenAccessAndHonourRanges() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            let file = CorpusBook.all.first { $0.file.lastPathComponent == "idpf-trees.epub" }!.file
            let (_, lent) = try await ingest(client, file)
            let lentID = try #require(lent["id"] as? String)
            // A new book's id is time-ordered (version 7): its index entries go to the end of their ranges.
            #expect(lentID.dropFirst(14).first == "7", "\(lentID)")
            let anonymous = try await client.execute(uri: "/books/\(lentID)/fulfill", method: .get) { $0.status }
            #expect(anonymous == .unauthorized)
            let open = CorpusBook.all.first { $0.file.lastPathComponent == "palace-nestedtoc.epub" }!.file
            let (_, openBook) = try await ingest(client, open, query: "?open_access=true")
            let openID = try #require(openBook["id"] as? String)
            let bytes = try Data(contentsOf: open)
            try await client.execute(uri: "/books/\(openID)/fulfill", method: .get) { response in
                #expect(response.status == .ok)
                #expect(Data(buffer: response.body) == bytes)
            }
            try await client.execute(uri: "/books/\(openID)/fulfill", method: .get, headers: [.range: "bytes=10-19"]) { response in
                #expect(response.status == .partialContent)
                #expect(Data(buffer: response.body) == bytes.subdata(in: 10..<20))
                #expect(response.headers[.contentRange] == "bytes 10-19/\(bytes.count)")
            }
            try await client.execute(uri: "/books/\(openID)/fulfill", method: .get, headers: [.range: "bytes=999999999-"]) {
                #expect($0.status.code == 416)
            }
        }
    }

    @Test(.needsCorpus) func coversHaveAThumbnailAtMost200PixelsHighAndFeedsSayItsType() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            let book = try #require(CorpusBook.all.first { $0.file.lastPathComponent == "bmaupin-basic-v3plus2.epub" })
            let (status, body) = try await ingest(client, book.file)
            #expect(status == .created)
            let id = try #require(body["id"] as? String)
            let (cover, coverType) = try await client.execute(uri: "/books/\(id)/cover", method: .get) {
                (Data(buffer: $0.body), $0.headers[.contentType])
            }
            let (thumbnail, thumbnailType, etag) = try await client.execute(uri: "/books/\(id)/cover?size=thumbnail", method: .get) {
                (Data(buffer: $0.body), $0.headers[.contentType], $0.headers[.eTag])
            }
            #expect(coverType == "image/jpeg" && thumbnailType == "image/jpeg")
            #expect(try #require(ImageSize.of(cover)).height > 200)
            #expect(try #require(ImageSize.of(thumbnail)).height == 200)
            let tag = try #require(etag)
            #expect(
                try await client.execute(uri: "/books/\(id)/cover?size=thumbnail", method: .get, headers: [.ifNoneMatch: tag]) { $0.status }
                    == .notModified
            )
            let entry = try await client.execute(uri: "/opds/books/\(id)", method: .get) { String(buffer: $0.body) }
            #expect(
                entry.contains(
                    #"rel="http://opds-spec.org/image/thumbnail" href="http://127.0.0.1:8080/books/\#(id)/cover?size=thumbnail" type="image/jpeg""#
                )
            )
            let missing = try await client.execute(uri: "/books/\(UUID())/cover?size=thumbnail", method: .get) { $0.status }
            #expect(missing == .notFound)
        }
    }

    /// A cover no higher than 200 px has no thumbnail of its own: the thumbnail URL serves the cover, with its type.
    @Test func aSmallCoverIsServedAsItsOwnThumbnail() async throws {
        let file = try MinimalEPUB.write(
            title: "A Small Cover",
            cover: .init(name: "cover.png", type: "image/png", data: CoverThumbnailTests.onePixelPNG)
        )
        let (app, _) = try await app()
        try await app.testRouter { client in
            let (status, body) = try await ingest(client, file)
            #expect(status == .created)
            let id = try #require(body["id"] as? String)
            let cover = try await client.execute(uri: "/books/\(id)/cover", method: .get) { Data(buffer: $0.body) }
            let (thumbnail, type) = try await client.execute(uri: "/books/\(id)/cover?size=thumbnail", method: .get) {
                (Data(buffer: $0.body), $0.headers[.contentType])
            }
            #expect(thumbnail == CoverThumbnailTests.onePixelPNG && cover == thumbnail && type == "image/png")
            let entry = try await client.execute(uri: "/opds/books/\(id)", method: .get) { String(buffer: $0.body) }
            #expect(entry.contains(#"href="http://127.0.0.1:8080/books/\#(id)/cover?size=thumbnail" type="image/png""#))
        }
    }
}
