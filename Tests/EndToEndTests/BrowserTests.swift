import Foundation
import TestSupport
import Testing

/// The web app and the operator console in a real Chromium (Debian's, driven by Playwright for Python from `make
/// test`'s virtual environment), against the three executables: `Tests/tools/browser/web_app_test.py` signs up,
/// searches, borrows, reads, bookmarks, changes the font size, reloads, returns; a second patron holds, and their open
/// My Books shows the offer within 2 s of the return without a reload (live events); an operator uploads two EPUBs; a patron downloads a loan, reads and bookmarks it offline, and the server has
/// both once back online; a KOReader place opens the reader in its section; staff find a patron by card number, block
/// and unblock them, give them a new PIN, end their loan for the next in the queue, read the reports (and their CSVs),
/// make, fill, reorder and feature a list that the home page then shows, hide a lane, and announce a closure; a patron
/// listens to an audiobook from chapter 3 and finds its place (12:34) on a second device, and reads a PDF; every page is checked for names, labels,
/// contrast, focus order and console errors. `BROWSER_SCREENSHOTS=<folder>` also saves the README's screenshots there.
@Suite struct BrowserTests {
    @Test(.enabled(if: TestTools.corpusIsPresent, Comment(rawValue: TestTools.corpusMissing)))
    func patronsAndAnOperatorUseTheWebAppInChromium() async throws {
        let environment = ProcessInfo.processInfo.environment
        let chromium = environment["CHROMIUM"] ?? "/usr/bin/chromium"
        try #require(FileManager.default.isExecutableFile(atPath: chromium), "Chromium at \(chromium) (make test installs Debian's)")
        try await Stack.run { stack in
            // Real books of the corpus: the generated ones' short chapters show the reader's page count after a change
            // of text size differing from a fresh load's (page 2 of 3, then 2 of 2 after a reload; not mended yet).
            var books: [URL] = []
            for name in [
                "gutenberg-pg11-alice.epub", "palace-charles-dickens_great-expectations.epub", "bmaupin-basic-v3plus2.epub",
                "idpf-childrens-literature.epub",
            ] { books.append(try await RealClientTests.corpusFile(name)) }
            try #require(books.count == 4)
            let lent = try await stack.ingest(books[0], copies: 1)
            let open = try await stack.ingest(books[1], openAccess: true)
            func title(_ id: String) async throws -> String {
                let entry = try await stack.gateway.call(.GET, "/opds/books/\(id)", headers: [("Accept", "application/opds+json")])
                return try #require((entry.json["metadata"] as? [String: Any])?["title"] as? String)
            }
            let offline = try await stack.ingest(try RealClientTests.corpusFile("otc-romeo.epub"), copies: 1)
            let (lentTitle, openTitle, offlineTitle) = (try await title(lent), try await title(open), try await title(offline))
            let staffBooks = await TestTools.generatedBooks(count: 2, seed: 520)
            let (staffLent, staffSpare) = (try await stack.ingest(staffBooks[0], copies: 1), try await stack.ingest(staffBooks[1], copies: 2))
            let (staffLentTitle, staffSpareTitle) = (try await title(staffLent), try await title(staffSpare))
            let audiobook = try await stack.ingest(
                try await TestTools.generatedMedia("m4b", ["--chapters", "3", "--seconds", "300", "--title", "Fifteen Minutes of Tones"]),
                copies: 5
            )
            let pdf = try await stack.ingest(try await TestTools.generatedMedia("pdf", ["--pages", "4", "--title", "Parish Minutes"]), copies: 5)
            let uploads = books[2...].map(\.path)
            let script = stack.root.appendingPathComponent("Tests/tools/browser/web_app_test.py")
            var arguments =
                [
                    script.path, "--artifacts", stack.workDir.deletingLastPathComponent().path, "--base",
                    "http://127.0.0.1:\(stack.ports[.gateway]!)", "--admin-token", Stack.adminToken, "--chromium", chromium,
                    "--lent-title", lentTitle, "--open-title", openTitle, "--offline-title", offlineTitle, "--open-id", open,
                    "--open-digest", KOReaderSyncTests.partialMD5(try Data(contentsOf: books[1])), "--staff-lent", staffLent, staffLentTitle,
                    "--staff-spare", staffSpare, staffSpareTitle, "--audiobook", audiobook, "Fifteen Minutes of Tones", "--pdf", pdf,
                    "Parish Minutes", "--upload",
                ] + uploads
            if let folder = environment["BROWSER_SCREENSHOTS"] { arguments += ["--screenshots", folder] }
            let output = stack.workDir.appendingPathComponent("browser.log")
            let browser = try ChildProcess(environment["TEST_PYTHON"] ?? "python3", arguments, environment: environment, output: output)
            let status = await browser.wait()
            let log = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            // What failed first: CI repeats only the first lines of a failure's message.
            let failed = log.split(separator: "\n").filter { $0.hasPrefix("FAIL") || $0.hasPrefix("- ") }.joined(separator: "\n")
            #expect(status == 0, "the browser tests failed:\n\(failed)\n--- the browser log's end:\n\(log.suffix(6000))")
            for step in [
                "operator uploads", "read to the end", "patron reads and returns", "phone-width audit", "account", "hostile links",
                "offline reading", "shared computer", "koreader place", "listen across devices", "live offer", "staff help a patron", "reports",
                "staff list",
            ] {
                #expect(log.contains("ok: \(step)\n"), "the browser step '\(step)' did not pass:\n\(log.suffix(3000))")
            }
        }
    }
}
