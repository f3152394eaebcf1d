import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import TestSupport
import Testing

@testable import CatalogService

/// A large resource inside a book is inflated as it is sent, whole or by ranges, with the bytes the book holds.
extension CatalogServiceTests {
    @Test func aLargeResourceIsStreamedWholeOrByRange() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 0, count: 64)
            let audio = EPUBParserTests.noise(3 << 20)
            let file = try epub(
                title: "Talking Book",
                cover: png,
                coverPath: "cover.png",
                coverType: "image/png",
                extras: [("audio.mp3", audio, "audio/mpeg")]
            )
            let (status, body) = try await ingest(client, file, query: "?open_access=true")
            #expect(status == .created)
            let id = try #require(body["id"] as? String)
            let uri = "/books/\(id)/publication/OPS/audio.mp3"
            try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentLength] == "\(audio.count)")
                #expect(response.headers[.contentType] == "audio/mpeg")
                #expect(Data(buffer: response.body) == audio)
            }
            try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=1000000-1000999"]) { response in
                #expect(response.status == .partialContent)
                #expect(response.headers[.contentRange] == "bytes 1000000-1000999/\(audio.count)")
                #expect(Data(buffer: response.body) == audio[1_000_000..<1_001_000])
            }
            try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=\(audio.count)-"]) {
                #expect($0.status == .rangeNotSatisfiable)
            }
        }
    }
}
