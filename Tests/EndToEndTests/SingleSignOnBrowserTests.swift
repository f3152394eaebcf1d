import Foundation
import TestSupport
import Testing

/// Single sign-on from outside: the web app in a real Chromium, the three executables and a real OpenID Connect
/// provider on loopback (`OIDCTestServer`). `Tests/tools/browser/single_sign_on_test.py`: the patron presses the
/// sign-in page's button, picks their account at the provider, comes back signed in, borrows a book and finds it in
/// My Books; their search that finds nothing asks the library for the title, staff answer it in the console, and the
/// patron's account shows the answer; a forged return begins no session. The pages pass the accessibility checks.
@Suite struct SingleSignOnBrowserTests {
    @Test func aPatronSignsInThroughTheLibrarysProviderInChromiumAndBorrows() async throws {
        let environment = ProcessInfo.processInfo.environment
        let chromium = environment["CHROMIUM"] ?? "/usr/bin/chromium"
        try #require(FileManager.default.isExecutableFile(atPath: chromium), "Chromium at \(chromium) (make test installs Debian's)")
        let provider = OIDCTestServer()
        try await provider.start()
        do {
            try await Stack.run(provider.configuration) { stack in
                let book = try await stack.ingest(await TestTools.generatedBooks(count: 1, seed: 702)[0], copies: 2)
                let entry = try await stack.gateway.call(.GET, "/opds/books/\(book)", headers: [("Accept", "application/opds+json")])
                let title = try #require((entry.json["metadata"] as? [String: Any])?["title"] as? String)
                let output = stack.workDir.appendingPathComponent("single-sign-on-browser.log")
                let browser = try ChildProcess(
                    environment["TEST_PYTHON"] ?? "python3",
                    [
                        stack.root.appendingPathComponent("Tests/tools/browser/single_sign_on_test.py").path, "--base",
                        "http://127.0.0.1:\(stack.ports[.gateway]!)", "--subject", OIDCTestServer.adult, "--admin-token", Stack.adminToken, "--book",
                        book, title, "--chromium",
                        chromium, "--artifacts", stack.workDir.deletingLastPathComponent().path,
                    ] + (environment["BROWSER_SCREENSHOTS"].map { ["--screenshots", $0] } ?? []),
                    environment: environment,
                    output: output
                )
                let status = await browser.wait()
                let log = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
                #expect(
                    status == 0,
                    "the single sign-on browser test failed:\n\(log.suffix(4000))\n--- the provider:\n\(provider.output.suffix(2000))"
                )
                for step in [
                    "signed in through the provider", "borrowed", "account", "sync key through the provider", "suggestion answered",
                    "forged return refused",
                ] {
                    #expect(log.contains("ok: \(step)\n"), "the step '\(step)' did not pass")
                }
            }
        } catch {
            await provider.stop()
            throw error
        }
        await provider.stop()
    }
}
