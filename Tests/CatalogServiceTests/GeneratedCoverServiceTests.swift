import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PostgresNIO
import ServiceSupport
import Shared
import TestSupport
import Testing

@testable import CatalogService

/// Every book has a cover: drawn at ingest when the EPUB has none, replaced by an operator's image, drawn for books
/// ingested earlier by the one-off job.
extension CatalogServiceTests {
    func image(_ client: some TestClientProtocol, _ id: String, thumbnail: Bool = false) async throws -> (Data, String?) {
        try await client.execute(uri: "/books/\(id)/cover" + (thumbnail ? "?size=thumbnail" : ""), method: .get) {
            (Data(buffer: $0.body), $0.headers[.contentType])
        }
    }

    func putCover(
        _ client: some TestClientProtocol,
        _ id: String,
        _ data: Data,
        type: String = "image/png",
        admin: Bool = true
    ) async throws
        -> (HTTPResponse.Status, [String: Any])
    {
        var headers: HTTPFields = [.contentType: type]
        if admin { headers[.authorization] = "Bearer \(TestConfig.adminToken)" }
        return try await client.execute(uri: "/admin/books/\(id)/cover", method: .put, headers: headers, body: ByteBuffer(bytes: data)) {
            ($0.status, (try? JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any]) ?? [:])
        }
    }

    @Test func aBookWithoutACoverGetsOneDrawnAndARealCoverSentLaterReplacesIt() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            let file = try MinimalEPUB.write(title: "A Book & Its <Cover>", isbn: "9780000000019", author: "Ann Author")
            let (status, body) = try await ingest(client, file)
            #expect(status == .created)
            let id = try #require(body["id"] as? String)
            let book = try #require(body["book"] as? [String: Any])
            #expect(book["hasCover"] as? Bool == true && book["coverSource"] as? String == "generated")
            let (cover, coverType) = try await image(client, id)
            #expect(coverType == "image/jpeg" && ImageSize.of(cover)?.height == GeneratedCover.height)
            let (thumbnail, _) = try await image(client, id, thumbnail: true)
            #expect(ImageSize.of(thumbnail)?.height == CoverThumbnail.maxHeight)
            let entry = try await client.execute(uri: "/opds/books/\(id)", method: .get) { String(buffer: $0.body) }
            #expect(entry.contains("/books/\(id)/cover?size=thumbnail"))

            // Refusals change nothing.
            #expect(try await putCover(client, id, CoverThumbnailTests.transparentPNG, admin: false).0 == .unauthorized)
            #expect(
                try await putCover(
                    client,
                    id,
                    Data("<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>".utf8),
                    type: "image/svg+xml"
                ).0 == .unsupportedMediaType
            )
            #expect(try await putCover(client, id, CoverThumbnailTests.pixelBomb).0 == .unprocessableContent)
            #expect(try await putCover(client, id, Data(CoverThumbnailTests.transparentPNG.prefix(60))).0 == .unprocessableContent)
            #expect(try await putCover(client, UUID().uuidString, CoverThumbnailTests.transparentPNG).0 == .notFound)
            #expect(try await image(client, id).0 == cover)

            let (replaced, replacedBody) = try await putCover(client, id, CoverThumbnailTests.transparentPNG)
            #expect(replaced == .ok)
            #expect(replacedBody["coverSource"] as? String == "uploaded" && replacedBody["coverType"] as? String == "image/png")
            #expect(try await image(client, id).0 == CoverThumbnailTests.transparentPNG)
            let (newThumbnail, newThumbnailType) = try await image(client, id, thumbnail: true)
            #expect(newThumbnailType == "image/png" && ImageSize.of(newThumbnail)?.width == 150, "the thumbnail is the new cover's")

            // A new edition without a cover keeps the operator's cover; one with its own cover takes that.
            let edition = try MinimalEPUB.write(title: "A Book & Its <Cover>, revised", isbn: "9780000000019", author: "Ann Author")
            let (editionStatus, editionBody) = try await ingest(client, edition, query: "?replace=true")
            #expect(editionStatus == .ok && (editionBody["book"] as? [String: Any])?["coverSource"] as? String == "uploaded")
            #expect(try await image(client, id).0 == CoverThumbnailTests.transparentPNG)
            let withCover = try MinimalEPUB.write(
                title: "A Book & Its <Cover>, third",
                isbn: "9780000000019",
                cover: .init(name: "cover.png", type: "image/png", data: CoverThumbnailTests.onePixelPNG)
            )
            let (_, thirdBody) = try await ingest(client, withCover, query: "?replace=true")
            #expect((thirdBody["book"] as? [String: Any])?["coverSource"] as? String == "epub")
            #expect(try await image(client, id).0 == CoverThumbnailTests.onePixelPNG)
        }
    }

    @Test func theOneOffJobDrawsCoversForBooksIngestedWithoutOne() async throws {
        let database = try await TestDatabase.create(prefix: "catalog")
        let config = TestConfig.base(["CATALOG_DATABASE_URL": database, "BLOB_DIR": blobs.path])
        let app = try await buildCatalogApplication(config: config)
        try await app.testRouter { client in
            var ids: [String] = []
            for title in ["First Old Book", "Second Old Book"] {
                let (_, body) = try await ingest(client, try MinimalEPUB.write(title: title))
                ids.append(try #require(body["id"] as? String))
            }
            // As books were stored before covers were drawn.
            try await TestDatabase.execute(
                "UPDATE books SET cover_sha256 = NULL, cover_type = NULL, cover_source = NULL, thumbnail_sha256 = NULL, thumbnail_type = NULL",
                on: database
            )
            #expect(try await client.execute(uri: "/books/\(ids[0])/cover", method: .get) { $0.status } == .notFound)

            #expect(try await CoverBackfill.run(config: config) == 2)
            for id in ids {
                let (cover, type) = try await image(client, id)
                #expect(type == "image/jpeg" && ImageSize.of(cover)?.height == GeneratedCover.height)
            }
            #expect(try await CoverBackfill.run(config: config) == 0, "a second run finds nothing to do")
        }
    }
}
