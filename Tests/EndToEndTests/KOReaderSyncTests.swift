import Crypto
import Foundation
import TestSupport
import Testing

/// KOReader's sync plugin and OPDS Progression against the three real executables, through the gateway: a sync key
/// made in the account, progress sent under the partial MD5 of the file the library served, read back by the web
/// reader, by a Readium app's progression document and the other way round; a book stored before digests were kept
/// gets its digest from `catalog reread-metadata`.
@Suite(.serialized) struct KOReaderSyncTests {
    /// koreader's `util.partialMD5`, written again here: 1,024 bytes at 0, then at 1 KiB << 2i for i = 0...10.
    static func partialMD5(_ data: Data) -> String {
        var md5 = Insecure.MD5()
        for offset in [0] + (0...10).map({ 1_024 << (2 * $0) }) where offset < data.count {
            md5.update(data: data[offset..<min(offset + 1_024, data.count)])
        }
        return md5.finalize().map { String(format: "%02x", $0) }.joined()
    }

    @Test func koreaderAndTheWebReaderShareOnePositionPerBook() async throws {
        try await Stack.run { stack in
            let api = stack.gateway
            let files = Array(await Stack.corpus.prefix(2))
            try #require(files.count == 2)
            let (book, other) = (try await stack.ingest(files[0]), try await stack.ingest(files[1]))
            let (digest, otherDigest) = (Self.partialMD5(try Data(contentsOf: files[0])), Self.partialMD5(try Data(contentsOf: files[1])))
            let token = try await stack.signUp().token
            let ann = GatewayClient.Credentials.bearer(token)
            try await stack.waitForLicence(book, token: token)
            #expect(try await api.call(.POST, "/me/books/\(book)/borrow", as: ann).status == 201)

            let made = try await api.call(.POST, "/me/sync-keys", as: ann, json: #"{"device": "Kobo Libra", "secret": "4321"}"#)
            #expect(made.status == 201, "\(made.text)")
            let username = try #require(made.json["username"] as? String)
            let key = try #require(made.json["key"] as? String)
            let kobo = [
                ("x-auth-user", username), ("x-auth-key", Insecure.MD5.hash(data: Data(key.utf8)).map { String(format: "%02x", $0) }.joined()),
                ("Accept", "application/vnd.koreader.v1+json"),
            ]
            #expect(try await api.call(.GET, "/kosync/healthcheck").json["state"] as? String == "OK")
            #expect(try await api.call(.GET, "/kosync/users/auth", headers: kobo).json["authorized"] as? String == "OK")

            // KOReader's place opens the web reader in the chapter its XPointer names.
            let order = try #require(
                (try await api.call(.GET, "/books/\(book)/manifest.json", as: ann).json["readingOrder"] as? [[String: Any]])?.compactMap {
                    $0["href"] as? String
                }
            )
            try #require(order.count >= 2, "the book has two chapters at least")
            let sent =
                #"{"document": "\#(digest)", "progress": "/body/DocFragment[2]/body/p[1]/text().0", "percentage": 0.5, "#
                + #""device": "Kobo Libra", "device_id": "K1"}"#
            let saved = try await api.call(.PUT, "/kosync/syncs/progress", json: sent, headers: kobo)
            #expect(saved.status == 200 && saved.json["document"] as? String == digest, "\(saved.text)")
            let position = try await api.call(.GET, "/me/books/\(book)/position", as: ann).json
            let locator = try #require(position["locator"] as? [String: Any], "\(position)")
            #expect(order[1].hasSuffix("/" + (locator["href"] as? String ?? "-")), "\(locator) in \(order)")
            #expect((locator["locations"] as? [String: Any])?["totalProgression"] as? Double == 0.5)
            #expect(position["device"] as? String == "Kobo Libra")
            let back = try await api.call(.GET, "/kosync/syncs/progress/\(digest)", headers: kobo).json
            #expect(back["progress"] as? String == "/body/DocFragment[2]/body/p[1]/text().0" && back["device_id"] as? String == "K1")

            // OPDS Progression: linked from the borrowed book in feeds and its manifest; the same position.
            let shelf = try await stack.fetchValid("/opds/shelf", kind: "feed", json: true, as: ann).json
            let shelfLinks = (shelf["publications"] as? [[String: Any]] ?? []).flatMap { links($0) }
            #expect(shelfLinks.contains { $0.rel == "http://opds-spec.org/progression" && $0.href.hasSuffix("/me/books/\(book)/progression") })
            #expect(try await stack.fetchValid("/opds/shelf", kind: "atom", as: ann).text.contains("/me/books/\(book)/progression"))
            let manifestLinks = links(try await api.call(.GET, "/books/\(book)/manifest.json", as: ann).json)
            #expect(manifestLinks.contains { $0.rel == "http://opds-spec.org/progression" })
            let progression = try await api.call(.GET, "/me/books/\(book)/progression", as: ann)
            #expect(progression.status == 200 && progression.headers.first(name: "content-type") == "application/opds-progression+json")
            #expect(
                progression.json["progression"] as? Double == 0.5
                    && (progression.json["device"] as? [String: Any])?["name"] as? String == "Kobo Libra"
            )
            let modified = try #require(progression.json["modified"] as? String)
            let stale = #"{"modified": "2020-01-01T00:00:00Z", "device": {"id": "urn:uuid:\#(UUID())", "name": "Thorium"}, "progression": 0.9}"#
            let older = try await api.call(.PUT, "/me/books/\(book)/progression", as: ann, json: stale)
            #expect(older.status == 409 && older.json["modified"] as? String == modified, "an older place never overwrites a newer one")
            let now = ISO8601DateFormatter().string(from: Date().addingTimeInterval(2))  // whole seconds: after KOReader's write
            let thorium =
                #"{"modified": "\#(now)", "device": {"id": "urn:uuid:\#(UUID())", "name": "Thorium"}, "progression": 0.7, "#
                + #""references": ["\#(order[order.count - 1])#p2"]}"#
            let kept = try await api.call(.PUT, "/me/books/\(book)/progression", as: ann, json: thorium)
            #expect(kept.status == 200 && kept.json["progression"] as? Double == 0.7, "\(kept.text)")
            let placed = try #require(try await api.call(.GET, "/me/books/\(book)/position", as: ann).json["locator"] as? [String: Any])
            #expect(order[order.count - 1].hasSuffix("/" + ((placed["href"] as? String)?.split(separator: "#").first.map(String.init) ?? "-")))
            let fromThorium = try await api.call(.GET, "/kosync/syncs/progress/\(digest)", headers: kobo).json
            #expect(fromThorium["percentage"] as? Double == 0.7 && fromThorium["progress"] as? String == "/body/DocFragment[\(order.count)]/body")
            #expect(try await api.call(.GET, "/me/books/\(other)/progression", as: ann).status == 204)

            // The web reader's newer place reaches KOReader as its percentage and the start of its chapter.
            let firstChapter = order[0]
            let later = ISO8601DateFormatter().string(from: Date().addingTimeInterval(60))
            let web =
                #"{"locator": {"href": "\#(firstChapter)", "locations": {"progression": 0.2, "totalProgression": 0.1}}, "#
                + #""timestamp": "\#(later)", "device": "web"}"#
            #expect(try await api.call(.PUT, "/me/books/\(book)/position", as: ann, json: web).status == 200)
            let fromWeb = try await api.call(.GET, "/kosync/syncs/progress/\(digest)", headers: kobo).json
            #expect(fromWeb["percentage"] as? Double == 0.1 && fromWeb["progress"] as? String == "/body/DocFragment[1]/body", "\(fromWeb)")
            #expect(fromWeb["device"] as? String == "web" && fromWeb["device_id"] == nil)

            // A book not on loan: KOReader's progress is kept under its file's name, and is no position of the book.
            let elsewhere = #"{"document": "\#(otherDigest)", "progress": "/body/DocFragment[1]/body", "percentage": 0.3, "device": "Kobo Libra"}"#
            #expect(try await api.call(.PUT, "/kosync/syncs/progress", json: elsewhere, headers: kobo).status == 200)
            #expect(try await api.call(.GET, "/kosync/syncs/progress/\(otherDigest)", headers: kobo).json["percentage"] as? Double == 0.3)
            #expect(try await api.call(.GET, "/me/books/\(other)/position", as: ann).status == 404)

            // A book stored before digests: `catalog reread-metadata` gives it its digest, and patron learns it.
            _ = try await stack.sql("catalog", "UPDATE books SET koreader_digest = NULL, reader_version = 2 WHERE id = '\(other)'")
            _ = try await stack.sql("patron", "UPDATE licenses SET koreader_digest = NULL WHERE book_id = '\(other)'")
            let reread = try await stack.command("catalog", ["reread-metadata"])
            #expect(reread.contains("read 1 books again"), "\(reread)")
            try await eventually("patron never learnt the digest again") {
                try await stack.sql("patron", "SELECT koreader_digest FROM licenses WHERE book_id = '\(other)'") == [otherDigest]
            }
            #expect(try await api.call(.POST, "/me/books/\(other)/borrow", as: ann).status == 201)
            #expect(try await api.call(.PUT, "/kosync/syncs/progress", json: elsewhere, headers: kobo).status == 200)
            let otherPosition = try await api.call(.GET, "/me/books/\(other)/position", as: ann).json
            #expect(((otherPosition["locator"] as? [String: Any])?["locations"] as? [String: Any])?["totalProgression"] as? Double == 0.3)

            // A revoked key syncs nothing more.
            let id = try #require(made.json["id"] as? String)
            #expect(try await api.call(.DELETE, "/me/sync-keys/\(id)", as: ann).status == 204)
            let refused = try await api.call(.GET, "/kosync/syncs/progress/\(digest)", headers: kobo)
            #expect(refused.status == 401 && refused.json["code"] as? Int == 2001)
        }
    }
}
