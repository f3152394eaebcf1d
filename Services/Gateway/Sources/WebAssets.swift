import Crypto
import Foundation
import NIOCore
import NIOFoundationCompat
import ServiceSupport
import Shared

/// The web app (`index.html`, served at `/`) and the operator console (`console.html`, at `/admin/`), with their
/// styles and JavaScript modules under `/web/`, read once at start from `Resources/Web` (or `WEB_ROOT`).
///
/// Every asset is also served under a content-hashed name (`/web/js/app.1a2b3c4d.js`) that may be cached for a year:
/// the pages, which are never cached, name the hashed files, and an import map sends each module's imports to the
/// hashed names, so a changed module is fetched anew while the unchanged ones stay cached. Bodies are gzipped once.
struct WebAssets: Sendable {
    struct Asset: Sendable {
        let body: ByteBuffer
        let gzipped: ByteBuffer?
        let contentType: String
        let etag: String
        /// Hashed names never change their content.
        let immutable: Bool
    }

    /// By request path: `/`, `/admin/`, `/web/...` (plain and hashed names).
    let assets: [String: Asset]
    /// The pages' Content-Security-Policy: scripts only from this origin and the pages' own import map.
    let contentSecurityPolicy: String

    static let pages = ["/": "index.html", "/admin/": "console.html"]
    /// The web app's service worker, always under this name (a registration names one URL).
    static let serviceWorker = "/web/js/service-worker.js"

    /// Reads `directory`; a missing directory gives an empty set (the API still works, `/` is 404).
    init(directory: URL?) {
        var files: [String: Data] = [:]
        if let directory, let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey]) {
            let base = directory.standardizedFileURL.path
            for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                let relative = String(url.standardizedFileURL.path.dropFirst(base.count + 1))
                files[relative] = try? Data(contentsOf: url)
            }
        }
        var assets: [String: Asset] = [:]
        var hashedNames: [String: String] = [:]
        for (relative, data) in files where !relative.hasSuffix(".html") {
            let digest = Self.digest(data)
            let path = "/web/" + relative
            let hashed = Self.hashedName(path, digest: digest)
            hashedNames[path] = hashed
            assets[path] = Self.asset(data, name: relative, etag: digest, immutable: false)
            assets[hashed] = Self.asset(data, name: relative, etag: digest, immutable: true)
        }
        let importMap = Self.importMap(hashedNames.filter { $0.key.hasSuffix(".js") })
        let importMapHash = Data(SHA256.hash(data: Data(importMap.utf8))).base64EncodedString()
        for (route, name) in Self.pages {
            guard let data = files[name] else { continue }
            var html = String(decoding: data, as: UTF8.self)
            // Longest names first, so that `/web/js/app.js` is not rewritten inside `/web/js/app.js.map`.
            for (path, hashed) in hashedNames.sorted(by: { $0.key.count > $1.key.count }) {
                html = html.replacingOccurrences(of: "\"\(path)\"", with: "\"\(hashed)\"")
            }
            html = html.replacingOccurrences(of: "<!-- import map -->", with: "<script type=\"importmap\">\(importMap)</script>")
            let page = Data(html.utf8)
            assets[route] = Self.asset(page, name: name, etag: Self.digest(page), immutable: false)
        }
        self.assets = assets
        contentSecurityPolicy = [
            "default-src 'none'", "script-src 'self' 'sha256-\(importMapHash)'",
            // Books' own styles: their stylesheets become blob: URLs in the reader, their style attributes are kept; an
            // audiobook's tracks play from this origin (or a blob: URL where no service worker adds the token).
            "style-src 'self' blob:", "style-src-attr 'unsafe-inline'", "img-src 'self' blob: data:", "font-src 'self' blob: data:",
            "connect-src 'self'", "media-src 'self' blob:", "frame-src 'self' blob:", "child-src 'self' blob:", "manifest-src 'self'",
            "base-uri 'none'", "form-action 'self'",
            "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

    /// `Resources/Web` inside the gateway's bundle, or the folder `WEB_ROOT` names (to edit the app without a rebuild).
    static func directory(webRoot: String?) -> URL? {
        if let webRoot, !webRoot.isEmpty { return URL(fileURLWithPath: webRoot) }
        return Bundle.module.url(forResource: "Web", withExtension: nil)
    }

    static func digest(_ data: Data) -> String {
        Hex.string(SHA256.hash(data: data).prefix(6))
    }

    /// `/web/js/app.js` -> `/web/js/app.<digest>.js`.
    static func hashedName(_ path: String, digest: String) -> String {
        guard let dot = path.lastIndex(of: "."), path[dot...].contains("/") == false else { return path + "." + digest }
        return "\(path[..<dot]).\(digest)\(path[dot...])"
    }

    static func importMap(_ names: [String: String]) -> String {
        let entries = names.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\"\($0.value)\"" }
        return "{\"imports\":{\(entries.joined(separator: ","))}}"
    }

    static func contentType(_ name: String) -> String {
        switch name.split(separator: ".").last.map({ $0.lowercased() }) ?? "" {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "ico": "image/x-icon"
        case "json": MediaType.json
        case "webmanifest": "application/manifest+json"
        default: "application/octet-stream"
        }
    }

    static func asset(_ data: Data, name: String, etag: String, immutable: Bool) -> Asset {
        let compressible = ["html", "js", "css", "svg", "json", "webmanifest"].contains(name.split(separator: ".").last.map(String.init) ?? "")
        let gzipped = compressible && data.count > 512 ? Gzip.compress(data).map { ByteBuffer(data: $0) } : nil
        return Asset(body: ByteBuffer(data: data), gzipped: gzipped, contentType: contentType(name), etag: "\"\(etag)\"", immutable: immutable)
    }
}
