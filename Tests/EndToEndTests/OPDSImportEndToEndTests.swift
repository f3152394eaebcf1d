import Foundation
import TestSupport
import Testing

/// One library imports another's open-access books through its OPDS feeds (two stacks, the three real executables
/// each): every book once through the root's navigation, lanes and pages; a second run adds nothing; a book the other
/// library withdraws is withdrawn here at the next run.
@Suite struct OPDSImportEndToEndTests {
    @Test func aLibraryImportsAnotherLibrarysOpenAccessBooksFromItsOPDSFeeds() async throws {
        try await Stack.run(["STAFF_JOB_INTERVAL": "0.5"]) { source in
            var offered: [String] = []
            for file in await TestTools.generatedBooks(count: 3, seed: 5210) { offered.append(try await source.ingest(file, openAccess: true)) }
            // The source library is on loopback, which only the operator's allow-list opens to import.
            try await Stack.run(["STAFF_JOB_INTERVAL": "0.5", "OPDS_IMPORT_ALLOW": "127.0.0.1/32"], insideAnother: true) { library in
                let staff = GatewayClient.Credentials.bearer(Stack.adminToken)
                let api = library.gateway
                let registered = try await api.call(
                    .POST,
                    "/admin/collections",
                    as: staff,
                    json: #"{"name": "The other library", "url": "\#(source.gateway.base)/opds"}"#
                )
                #expect(registered.status == 201, "\(registered.text)")
                let id = try #require(registered.json["id"] as? String)
                func run() async throws -> [String: Any] {
                    #expect(try await api.call(.POST, "/admin/collections/\(id)/run", as: staff).status == 202)
                    var last: [String: Any] = [:]
                    try await eventually(timeout: .seconds(90), "the import never finished") {
                        last = try await api.call(.GET, "/admin/collections/\(id)", as: staff).json
                        return ["done", "failed"].contains(last["status"] as? String ?? "")
                    }
                    return last
                }
                func titles(_ stack: Stack) async throws -> Set<String> {
                    let page = try await stack.gateway.call(.GET, "/admin/books?size=100", as: staff).json
                    return Set(
                        (page["books"] as? [[String: Any]] ?? []).filter { $0["withdrawn"] as? Bool != true }.compactMap { $0["title"] as? String }
                    )
                }

                let first = try await run()
                #expect(first["status"] as? String == "done" && first["booksAdded"] as? Int == 3, "\(first)")
                #expect((first["pagesRead"] as? Int ?? 0) > 3, "the root, its lanes and their pages: \(first)")
                #expect(try await titles(library) == (try await titles(source)))
                let second = try await run()
                #expect(second["booksAdded"] as? Int == 0 && second["booksWithdrawn"] as? Int == 0, "\(second)")

                // Withdrawn there: withdrawn here at the next run (the other library's caches may keep the page for
                // a few seconds, so the run is asked again until it sees the change).
                #expect(try await source.gateway.call(.DELETE, "/admin/books/\(offered[0])", as: staff).status < 300)
                var withdrawn = 0
                try await eventually(timeout: .seconds(90), "the withdrawn book was never withdrawn here") {
                    withdrawn += try await run()["booksWithdrawn"] as? Int ?? 0
                    return withdrawn == 1
                }
                #expect(try await titles(library).count == 2)
            }
        }
    }
}
