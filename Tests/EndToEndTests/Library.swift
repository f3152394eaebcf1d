import Crypto
import Foundation
import TestSupport
import Testing

/// Steps of the end-to-end scenarios that several tests share: ingesting, signing up, validating documents.
extension Stack {
    /// The valid books of `../shared/epubs` (INDEX.tsv says `should_ingest` = yes) when it is beside the repository,
    /// otherwise 12 books made by `Tests/tools/make_epubs.py`.
    static var corpus: [URL] {
        get async {
            if let indexedCorpus { return indexedCorpus }
            return await TestTools.generatedBooks(count: 12)
        }
    }

    /// The valid books that `../shared/epubs/INDEX.tsv` lists; nil without it.
    private static let indexedCorpus: [URL]? = {
        let dir = TestTools.corpusDirectory
        guard let index = try? String(contentsOf: dir.appendingPathComponent("INDEX.tsv"), encoding: .utf8) else {
            return nil
        }
        let rows = index.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        guard let header = rows.first, let name = header.firstIndex(of: "filename"), let ingest = header.firstIndex(of: "should_ingest") else {
            return []
        }
        return rows.dropFirst().filter { $0.count > ingest && $0[ingest] == "yes" }.map { dir.appendingPathComponent($0[name]) }
    }()

    /// Ingests `file` through `POST /admin/books` and returns the book's id.
    func ingest(_ file: URL, copies: Int = 1, openAccess: Bool = false) async throws -> String {
        let reply = try await gateway.call(
            .POST,
            "/admin/books?copies=\(copies)&open_access=\(openAccess)",
            as: .bearer(Self.adminToken),
            body: try Data(contentsOf: file),
            headers: [("Content-Type", "application/epub+zip")]
        )
        guard reply.status == 201 || reply.status == 200, let id = reply.json["id"] as? String else {
            throw StackError("ingest of \(file.lastPathComponent) failed: \(reply.status) \(reply.text)")
        }
        return id
    }

    /// Every file uploaded at once through `POST /admin/books`, each answer awaited whatever it is (a killed catalog
    /// answers none); how many were ingested (201).
    func uploadAtOnce(_ files: [URL]) async -> Int {
        let api = gateway
        return await withTaskGroup(of: Int.self) { group in
            for file in files {
                group.addTask {
                    let reply = try? await api.call(
                        .POST,
                        "/admin/books",
                        as: .bearer(Stack.adminToken),
                        body: (try? Data(contentsOf: file)) ?? Data(),
                        headers: [("Content-Type", "application/epub+zip")]
                    )
                    return reply?.status ?? 0
                }
            }
            return await group.reduce(into: 0) { $0 += $1 == 201 ? 1 : 0 }
        }
    }

    /// Signs up a barcode-and-PIN patron; returns its barcode and access token.
    func signUp(pin: String = "4321") async throws -> (barcode: String, token: String) {
        let reply = try await gateway.call(.POST, "/auth/signup", json: #"{"pin": "\#(pin)"}"#)
        let patron = reply.json["patron"] as? [String: Any]
        let tokens = reply.json["tokens"] as? [String: Any]
        guard reply.status == 201, let barcode = patron?["barcode"] as? String, let token = tokens?["access_token"] as? String else {
            throw StackError("signup failed: \(reply.status) \(reply.text)")
        }
        return (barcode, token)
    }

    /// Waits until the patron service knows the book's licence (it arrives through catalog's outbox).
    func waitForLicence(_ book: String, token: String) async throws {
        try await eventually("patron never learnt of book \(book)") {
            try await gateway.call(.GET, "/me/books/\(book)", as: .bearer(token)).status == 200
        }
    }

    /// Fetches `path` (Atom unless `json`) and checks it against the official schema for `kind`; returns the body.
    @discardableResult
    func fetchValid(
        _ path: String,
        kind: String,
        json: Bool = false,
        as credentials: GatewayClient.Credentials? = nil
    ) async throws -> GatewayClient.Reply {
        let reply = try await gateway.call(.GET, path, as: credentials, headers: json ? [("Accept", "application/opds+json")] : [])
        #expect(reply.status == 200, "\(path): \(reply.status) \(reply.text.prefix(300))")
        let problems = try await OPDSValidator.problems(in: reply.body, kind: kind)
        #expect(problems == nil, "\(path) as \(kind): \(problems ?? "")")
        return reply
    }
}

extension Data {
    var sha256: String { SHA256.hash(data: self).map { String(format: "%02x", $0) }.joined() }
}

/// The links of an OPDS 2.0 document's `links`, `navigation` or group, by relation.
func links(_ object: [String: Any], key: String = "links") -> [(rel: String, href: String)] {
    ((object[key] as? [[String: Any]]) ?? []).compactMap { link in
        guard let href = link["href"] as? String else { return nil }
        let rel = (link["rel"] as? String) ?? ((link["rel"] as? [String])?.first ?? "")
        return (rel, href)
    }
}

/// The ids of an OPDS 2.0 feed's publications (from their `self` links, `/opds/books/{id}`).
func publicationIDs(_ feed: [String: Any]) -> [String] {
    ((feed["publications"] as? [[String: Any]]) ?? []).compactMap { publication in
        links(publication).first { $0.rel == "self" }.map { String($0.href.split(separator: "/").last ?? "") }
    }
}
