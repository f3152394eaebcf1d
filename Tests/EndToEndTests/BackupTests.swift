import Crypto
import Foundation
import Synchronization
import TestSupport
import Testing

/// `patron backup` and `catalog backup` taken while patrons borrow and return, restored into a new stack.
@Suite(.serialized) struct BackupTests {
    @Test func aBackupTakenMidStormRestoresIntoANewStack() async throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("bookmobile-backup-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        var books: [String] = []
        var steady: [String] = []
        var files: [String: String] = [:]
        var acknowledgedBefore = 0
        try await Stack.run { stack in
            let api = stack.gateway
            for file in await Stack.corpus.prefix(3) { books.append(try await stack.ingest(file, copies: 50)) }
            for n in 0..<2 { steady.append(try await stack.signUp(pin: "\(6000 + n)").token) }
            for book in books { try await stack.waitForLicence(book, token: steady[0]) }
            for token in steady {
                for book in books { #expect(try await api.call(.POST, "/me/books/\(book)/borrow", as: .bearer(token)).status == 201) }
            }
            for book in books {
                let file = try await api.call(.GET, "/books/\(book)/fulfill", as: .bearer(steady[0]))
                #expect(file.status == 200)
                files[book] = Data(SHA256.hash(data: file.body)).base64EncodedString()
            }
            var stormers: [String] = []
            for n in 0..<3 { stormers.append(try await stack.signUp(pin: "\(7000 + n)").token) }
            let steadyToken = steady[0]
            let (started, acknowledged, extra) = try await Self.borrowing(api, books: books, tokens: stormers) {
                let patronOutput = try await stack.command("patron", ["backup", directory.path])
                // A book ingested between the two backups: in the catalog's, which is taken after.
                let extra = try await stack.ingest(Stack.corpus[3], copies: 1)
                // Its licence delivered to patron before catalog's snapshot: the restored patron learns it only from the
                // restore's queued licences.
                try await stack.waitForLicence(extra, token: steadyToken)
                let catalogOutput = try await stack.command("catalog", ["backup", directory.path])
                print(patronOutput + catalogOutput)
                #expect(catalogOutput.contains("every hash matches"), "\(catalogOutput)")
                return extra
            }
            // The backup is the owner's alone: patron data and the library's files.
            func mode(_ path: String) -> Int? {
                try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(path).path)[.posixPermissions] as? Int
            }
            #expect(mode("patron") == 0o700 && mode("catalog") == 0o700, "\(String(mode("patron") ?? 0, radix: 8))")
            #expect(mode("patron/patron.dump") == 0o600 && mode("catalog/catalog.dump") == 0o600)
            acknowledgedBefore = acknowledged.filter { $0 < started }.count
            books.append(extra)
            #expect(acknowledgedBefore > 5, "the storm borrowed before the backup began")
        }

        try await Stack.run(launch: false) { stack in
            let restored = try await stack.command("patron", ["restore", directory.path]) + stack.command("catalog", ["restore", directory.path])
            print(restored)
            try await stack.launchAll()
            let api = stack.gateway
            for book in books {
                #expect(try await api.call(.GET, "/opds/books/\(book)").status == 200, "book \(book) restored")
            }
            for token in steady {
                for book in books.prefix(3) {
                    let state = try await api.call(.GET, "/me/books/\(book)", as: .bearer(token)).json["state"] as? String
                    #expect(["not_downloaded", "downloading", "download_completed"].contains(state ?? ""), "the loan of \(book): \(state ?? "none")")
                }
            }
            for book in books.prefix(3) {
                let file = try await api.call(.GET, "/books/\(book)/fulfill", as: .bearer(steady[1]))
                #expect(file.status == 200 && Data(SHA256.hash(data: file.body)).base64EncodedString() == files[book], "the file of \(book)")
            }
            let loans = Int(try await stack.sql("patron", "SELECT count(*) FROM loan_history").first ?? "") ?? 0
            #expect(
                loans >= acknowledgedBefore + 6,
                "every loan acknowledged before the backup: \(loans) loans, \(acknowledgedBefore) + 6 acknowledged"
            )
            // The book ingested between the two backups reaches the restored patron (its licence queued again), and
            // writes work on the restored stack.
            try await stack.waitForLicence(books[3], token: steady[0])
            #expect(try await api.call(.POST, "/me/books/\(books[3])/borrow", as: .bearer(steady[0])).status == 201)
        }
    }

    /// Patrons borrowing and returning (borrows with `Idempotency-Key`) while `during` runs, from two seconds in;
    /// returns when `during` began, when each borrow was acknowledged, and what `during` returned.
    static func borrowing<T: Sendable>(
        _ api: GatewayClient,
        books: [String],
        tokens: [String],
        during: @escaping @Sendable () async throws -> T
    ) async throws -> (ContinuousClock.Instant, [ContinuousClock.Instant], T) {
        let acknowledged = Storm.Acknowledged()
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for token in tokens {
                group.addTask {
                    var round = 0
                    while !acknowledged.stop.load(ordering: .relaxed) {
                        let book = books[round % books.count]
                        round += 1
                        let key = [("Idempotency-Key", UUID().uuidString)]
                        let reply = try await api.call(.POST, "/me/books/\(book)/borrow", as: .bearer(token), headers: key)
                        if reply.status == 201 { acknowledged.borrowedAt.withLock { $0.append(ContinuousClock.now) } }
                        _ = try await api.call(.POST, "/me/books/\(book)/return", as: .bearer(token))
                    }
                }
            }
            // The backup begins once the storm has borrowed a few times (not after a fixed time: a loaded machine,
            // a newcomer's `make test`, acknowledged only 5 in 2 s).
            try await eventually(timeout: .seconds(60), "the storm never borrowed") { acknowledged.borrowedAt.withLock { $0.count } > 5 }
            let started = ContinuousClock.now
            let result = try await during()
            acknowledged.stop.store(true, ordering: .relaxed)
            try await group.waitForAll()
            return (started, acknowledged.borrowedAt.withLock { $0 }, result)
        }
    }
}
