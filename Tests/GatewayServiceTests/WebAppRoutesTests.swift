import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceSupport
import Shared
import TestSupport
import Testing

@testable import GatewayService

/// The web app's pages and assets as the gateway serves them from its bundle.
@Suite struct WebAppRoutesTests {
    func gateway() async throws -> some ApplicationProtocol {
        try await buildGatewayApplication(
            config: TestConfig.base(["CATALOG_URLS": "http://127.0.0.1:1", "PATRON_URLS": "http://127.0.0.1:1", "GATEWAY_PORT": "0"])
        )
    }

    @Test func pagesNameHashedAssetsThatAreCachedForAYearAndTheImportMapIsTheOnlyInlineScript() async throws {
        try await gateway().testRouter { client in
            for page in ["/", "/admin/"] {
                try await client.execute(uri: page, method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                    #expect(response.headers[.cacheControl] == "no-cache")
                    let csp = try #require(response.headers[.contentSecurityPolicy])
                    #expect(csp.contains("default-src 'none'") && csp.contains("frame-ancestors 'none'") && !csp.contains("unsafe-eval"))
                    let html = String(buffer: response.body)
                    // The import map is allowed by its hash, and it is the page's only inline script.
                    let map = try #require(html.firstMatch(of: #/<script type="importmap">(.*?)</script>/#)?.1)
                    let hash = Data(SHA256.hash(data: Data(map.utf8))).base64EncodedString()
                    // Scripts: this origin and the import map's hash, nothing else.
                    let scripts = csp.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("script-src") }
                    #expect(scripts == ["script-src 'self' 'sha256-\(hash)'"])
                    #expect(html.matches(of: #/<script(?![^>]*\bsrc=)(?![^>]*importmap)/#).isEmpty)
                    // Every asset the page loads has a hashed name, and the import map sends each module to its hashed name.
                    let named =
                        html.matches(of: #/(?:src|href)="(/web/[^"]+)"/#).map { String($0.1) }
                        + map.matches(of: #/:"(/web/[^"]+)"/#).map { String($0.1) }
                    #expect(!named.isEmpty)
                    for path in named { #expect(path.firstMatch(of: #/\.[0-9a-f]{12}\.[a-z]+$/#) != nil, "\(path) is not hashed") }
                }
            }
            try await client.execute(uri: "/", method: .get) { page in
                let html = String(buffer: page.body)
                let script = try #require(html.firstMatch(of: #/src="(/web/js/app\.[0-9a-f]{12}\.js)"/#)?.1)
                try await client.execute(uri: String(script), method: .get, headers: [.acceptEncoding: "gzip"]) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
                    #expect(response.headers[.contentEncoding] == "gzip")
                    #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                    #expect(response.headers[.xContentTypeOptions] == "nosniff")
                    let etag = try #require(response.headers[.eTag])
                    try await client.execute(uri: String(script), method: .get, headers: [.ifNoneMatch: etag]) { again in
                        #expect(again.status == .notModified)
                    }
                }
            }
            // The plain name works too (revalidated each time), and an unknown asset is a problem document.
            try await client.execute(uri: "/web/css/app.css", method: .get) { response in
                #expect(response.status == .ok && response.headers[.cacheControl] == "no-cache" && response.headers[.contentEncoding] == nil)
            }
            try await client.execute(uri: "/web/js/nothing.js", method: .get) { response in
                #expect(response.status == .notFound && response.headers[.contentType] == Problem.mediaType)
            }
        }
    }

    @Test func hashedNamesKeepTheExtensionAndTheImportMapListsModules() {
        #expect(WebAssets.hashedName("/web/js/app.js", digest: "abc") == "/web/js/app.abc.js")
        #expect(WebAssets.hashedName("/web/LICENSE", digest: "abc") == "/web/LICENSE.abc")
        #expect(WebAssets.importMap(["/web/js/a.js": "/web/js/a.1.js"]) == #"{"imports":{"/web/js/a.js":"/web/js/a.1.js"}}"#)
    }
}
