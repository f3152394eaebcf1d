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

/// The catalog through its router against a real database: the fixture that the suites of this folder extend, one
/// feature per file.
/// A class so that each test's blob folder is removed when the test ends (`deinit`).
@Suite final class CatalogServiceTests: Sendable {
    static let admin: HTTPFields = [.authorization: "Bearer \(TestConfig.adminToken)", .contentType: "application/epub+zip"]
    let blobs = FileManager.default.temporaryDirectory.appendingPathComponent("blobs-\(UUID().uuidString)")

    deinit { try? FileManager.default.removeItem(at: blobs) }

    func app() async throws -> (some ApplicationProtocol, URL) {
        let app = try await buildCatalogApplication(
            config: TestConfig.base(["CATALOG_DATABASE_URL": try await TestDatabase.create(prefix: "catalog"), "BLOB_DIR": blobs.path])
        )
        return (app, blobs)
    }

    func ingest(_ client: some TestClientProtocol, _ file: URL, query: String = "") async throws -> (HTTPResponse.Status, [String: Any]) {
        let data = try Data(contentsOf: file)
        return try await client.execute(uri: "/admin/books" + query, method: .post, headers: Self.admin, body: ByteBuffer(bytes: data)) { response in
            (response.status, (try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]) ?? [:])
        }
    }

    /// Runs ../shared/tools/validate_opds.py on the document at `uri`.
    func validate(_ client: some TestClientProtocol, _ uri: String, kind: String, json: Bool = false) async throws {
        let headers: HTTPFields = json ? [.accept: "application/opds+json"] : [:]
        let body = try await client.execute(uri: uri, method: .get, headers: headers) { response in
            #expect(response.status == .ok, "\(uri)")
            return Data(buffer: response.body)
        }
        let problems = try await OPDSValidator.problems(in: body, kind: kind)
        #expect(problems == nil, "\(uri) as \(kind): \(problems ?? "")")
    }
}
