import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceSupport
import Shared
import TestSupport
import Testing

@testable import CatalogService

/// MARC 21 export (`GET /admin/marc`): the collection as MARCXML and as ISO 2709, read back with pymarc (the test tools'
/// virtual environment) with the right fields; the changes since a time list a withdrawn book as a deleted record.
extension CatalogServiceTests {
    @Test func theCollectionExportsAsMARCXMLAndISO2709ThatPymarcReadsAndAWithdrawnBookIsADeletedRecord() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            var ingested: [(id: String, title: String, authors: [String])] = []
            for file in await CorpusBook.valid(6) {
                let (status, body) = try await ingest(client, file)
                #expect(status == .created, "\(file.lastPathComponent)")
                if let id = body["id"] as? String, let title = body["title"] as? String {
                    ingested.append((id.lowercased(), title, body["authors"] as? [String] ?? []))
                }
            }
            try #require(ingested.count >= 4)
            func export(_ query: String) async throws -> (HTTPResponse.Status, Data, HTTPFields) {
                try await client.execute(uri: "/admin/marc?" + query, method: .get, headers: Self.admin) {
                    ($0.status, Data(buffer: $0.body), $0.headers)
                }
            }
            let (xmlStatus, xml, xmlHeaders) = try await export("format=marcxml")
            let (isoStatus, iso, isoHeaders) = try await export("format=iso2709")
            #expect(xmlStatus == .ok && isoStatus == .ok)
            #expect(xmlHeaders[.contentType] == "application/marcxml+xml; charset=utf-8" && isoHeaders[.contentType] == "application/marc")
            #expect(isoHeaders[.contentDisposition] == "attachment; filename=\"bookmobile-collection.mrc\"")
            let read = try await Self.readWithPymarc(xml: xml, iso: iso)
            let records = try #require(read["xml"] as? [[String: Any]])
            #expect((read["iso"] as? [[String: Any]])?.count == records.count, "both formats carry the same records")
            #expect(Set(records.compactMap { $0["id"] as? String }) == Set(ingested.map(\.id)))
            for (id, title, authors) in ingested {
                let record = try #require(records.first { $0["id"] as? String == id })
                #expect(record["status"] as? String == "n")
                #expect((record["title"] as? String)?.hasPrefix(title) == true, "\(record["title"] ?? "") for \(title)")
                let links = record["links"] as? [String] ?? []
                #expect(links.contains("http://127.0.0.1:8080/#/book/\(id)"), "\(links)")
                #expect(links.contains("http://127.0.0.1:8080/opds/books/\(id)"), "\(links)")
                #expect(record["authors"] as? [String] == authors, "\(title): \(record)")
                #expect((record["language"] as? String)?.count == 3)
            }
            let isoRecords = read["iso"] as? [[String: Any]] ?? []
            for record in records {
                let twin = isoRecords.first { $0["id"] as? String == record["id"] as? String }
                #expect(twin?["title"] as? String == record["title"] as? String && twin?["links"] as? [String] == record["links"] as? [String])
            }

            // Changes since a moment: the book withdrawn after it is a deleted record, and nothing else changed.
            let before = WireFormat.formatDate(Date())
            try await Task.sleep(for: .seconds(1))
            let withdrawn = ingested[0].id
            #expect(try await client.execute(uri: "/admin/books/\(withdrawn)", method: .delete, headers: Self.admin) { $0.status }.code < 300)
            let since = before.replacingOccurrences(of: ":", with: "%3A")
            let (_, changedXML, _) = try await export("format=marcxml&since=\(since)")
            let (_, changedISO, _) = try await export("format=iso2709&since=\(since)")
            let changes = try await Self.readWithPymarc(xml: changedXML, iso: changedISO)
            for format in ["xml", "iso"] {
                let changed = changes[format] as? [[String: Any]] ?? []
                #expect(changed.map { $0["id"] as? String } == [withdrawn], "\(format): \(changed)")
                #expect(changed.first?["status"] as? String == "d")
            }
            let (_, afterWithdrawal, _) = try await export("format=iso2709")
            let remaining = try await Self.readWithPymarc(xml: xml, iso: afterWithdrawal)["iso"] as? [[String: Any]] ?? []
            #expect(remaining.count == ingested.count - 1 && !remaining.contains { $0["id"] as? String == withdrawn })

            #expect(try await export("format=pdf").0 == .badRequest)
            #expect(try await export("since=yesterday").0 == .badRequest)
            #expect(try await client.execute(uri: "/admin/marc", method: .get) { $0.status } == .unauthorized)
        }
    }

    @Test func aMARCExportFileIsBuiltInTheBackgroundWithItsProgressAndKeptForDownload() async throws {
        let app = try await buildCatalogApplication(
            config: TestConfig.base([
                "CATALOG_DATABASE_URL": try await TestDatabase.create(prefix: "marcjob"), "BLOB_DIR": blobs.path, "STAFF_JOB_INTERVAL": "0.2",
            ])
        )
        try await app.testRouter { client in
            var ids: [String] = []
            for file in await CorpusBook.valid(3) { if let id = try await ingest(client, file).1["id"] as? String { ids.append(id.lowercased()) } }
            let json: HTTPFields = [.authorization: "Bearer \(TestConfig.adminToken)", .contentType: "application/json"]
            func call(_ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil) async throws -> (HTTPResponse.Status, Data) {
                try await client.execute(uri: uri, method: method, headers: json, body: body.map { ByteBuffer(string: $0) }) {
                    ($0.status, Data(buffer: $0.body))
                }
            }
            func object(_ data: Data) -> [String: Any] { (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:] }
            #expect(try await call(.post, "/admin/marc/exports", #"{"format": "pdf"}"#).0 == .badRequest)
            for format in ["iso2709", "marcxml"] {
                let (status, body) = try await call(.post, "/admin/marc/exports", #"{"format": "\#(format)"}"#)
                let asked = object(body)
                // A replica may take it up before the answer is written.
                #expect(status == .accepted && ["waiting", "running", "done"].contains(asked["status"] as? String ?? ""), "\(asked)")
                #expect(asked["total"] as? Int == ids.count, "\(asked)")
                let id = try #require(asked["id"] as? String)
                var done: [String: Any] = [:]
                try await eventually("the export file was never built") {
                    let exports = object(try await call(.get, "/admin/marc/exports").1)["exports"] as? [[String: Any]] ?? []
                    done = exports.first { $0["id"] as? String == id } ?? [:]
                    return done["status"] as? String == "done"
                }
                #expect(done["records"] as? Int == ids.count && done["createdBy"] as? String == "admin", "\(done)")
                let file = try #require(done["fileUrl"] as? String)
                let (fileStatus, data) = try await call(.get, file)
                #expect(fileStatus == .ok && data.count == done["size"] as? Int)
                let read = try await Self.readWithPymarc(
                    xml: format == "marcxml" ? data : Data((MARCRecord.xmlStart + MARCRecord.xmlEnd).utf8),
                    iso: format == "iso2709" ? data : Data()
                )
                let records = (read[format == "marcxml" ? "xml" : "iso"] as? [[String: Any]]) ?? []
                #expect(Set(records.compactMap { $0["id"] as? String }) == Set(ids), "\(format)")
            }
        }
    }

    /// What pymarc reads in the two files (`Tests/tools/marc_check.py`).
    static func readWithPymarc(xml: Data, iso: Data) async throws -> [String: Any] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("marc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (xmlFile, isoFile, out) = (
            folder.appendingPathComponent("a.xml"), folder.appendingPathComponent("a.mrc"), folder.appendingPathComponent("out.json")
        )
        try xml.write(to: xmlFile)
        try iso.write(to: isoFile)
        let script = TestTools.directory.appendingPathComponent("marc_check.py")
        let (status, output) = try await ChildProcess.run([TestTools.python, script.path, xmlFile.path, isoFile.path, out.path])
        try #require(status == 0, "pymarc could not read the export: \(String(decoding: output, as: UTF8.self).suffix(2000))")
        return try JSONSerialization.jsonObject(with: Data(contentsOf: out)) as? [String: Any] ?? [:]
    }
}

@Test func marcControlFieldsCarryTheUTCTimesAndTheFixedDataIsFortyCharacters() throws {
    let date = try #require(ISO8601DateFormatter().date(from: "2026-11-28T23:59:58Z"))
    #expect(MARCCataloguing.timestamp(date) == "20261128235958.0")
    #expect(MARCCataloguing.day(date) == "2026-11-28")
    var entry = EntryLinksTests.book()
    entry.metadata.languages = ["fr"]
    entry.metadata.published = "1861-08-01"
    entry.updatedAt = date
    let book = MARCCataloguing.Book(entry: entry, addedAt: date)
    let fixed = MARCCataloguing.fixedData(book)
    #expect(fixed.count == 40 && fixed.hasPrefix("261128s1861") && fixed.dropFirst(35).prefix(3) == "fre", "\(fixed)")
}
