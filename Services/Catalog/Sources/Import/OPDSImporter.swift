import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import ServiceSupport

/// One run of a collection's import: walks its feed (pages, `next` links, navigation and groups; each page once, at
/// most `maxPages`, `maxEntries` and `maxRunBytes`, only from addresses `OutboundAddresses` permits), ingests each EPUB acquisition it has not imported before as an upload would be (same checks and
/// warnings; a file already in the catalog is linked, not stored twice), marks the books as the collection's, and, when
/// every page was read, withdraws the books whose entries are gone. Progress and errors go to the collection's row.
struct OPDSImporter: Sendable {
    let collections: OPDSCollectionPostgresRepository
    let ingester: Ingester
    let books: BookPostgresRepository
    let maxIngestBytes: Int
    var maxPages = 2_000
    /// Entries ingested at most in one run, and bytes fetched at most in one run (pages and files).
    var maxEntries = 10_000
    var maxRunBytes = 20 << 30
    var outbound = OutboundAddresses()

    /// Page bodies are read whole up to this size.
    static let maxPageBytes = 16 << 20

    func run(_ claimed: OPDSCollectionPostgresRepository.Claimed, logger: Logger) async throws {
        var errors: [String] = []
        func note(_ error: String) {
            logger.warning("OPDS import", metadata: ["collection.id": "\(claimed.id)", "error": "\(error)"])
            if errors.count < 100 { errors.append(error) }
        }
        guard let start = URL(string: claimed.url) else {
            try await collections.finish(claimed.id, failed: true, withdrawn: 0, errors: ["the feed's URL is not valid"], logger: logger)
            return
        }
        // The walk: every page once; the entries in the order met, each id once.
        var queue = [start]
        var visited = Set<String>()
        var entries: [OPDSFeedPage.Entry] = []
        var seen = Set<String>()
        var complete = true
        var pages = 0
        var added = 0
        var fetched = 0
        var tooMany = false
        while !queue.isEmpty, pages < maxPages, !tooMany, fetched < maxRunBytes {
            let url = queue.removeFirst()
            guard visited.insert(url.absoluteString).inserted else { continue }
            do {
                let body = try await fetch(url, claimed: claimed, limit: min(Self.maxPageBytes, maxRunBytes - fetched), logger: logger)
                fetched += body.count
                let page = try OPDSFeedPage.parse(body, url: url)
                pages += 1
                for entry in page.entries where seen.insert(entry.id).inserted {
                    guard entries.count < maxEntries else {
                        tooMany = true
                        break
                    }
                    entries.append(entry)
                }
                queue += page.follow.filter { !visited.contains($0.absoluteString) }
            } catch {
                complete = false
                note("page \(url.absoluteString): \(error)")
                if pages == 0 && url == start {
                    try await collections.finish(claimed.id, failed: true, withdrawn: 0, errors: errors, logger: logger)
                    return
                }
            }
            if pages % 10 == 0 {
                try await collections.progress(claimed.id, pages: pages, seen: entries.count, added: added, errors: errors, logger: logger)
            }
        }
        if !queue.isEmpty || tooMany {
            complete = false
            note(
                tooMany
                    ? "stopped at \(maxEntries) entries"
                    : fetched >= maxRunBytes ? "stopped after \(maxRunBytes) bytes" : "stopped after \(maxPages) pages"
            )
        }
        try await collections.progress(claimed.id, pages: pages, seen: entries.count, added: added, errors: errors, logger: logger)

        // The new entries, ingested one by one.
        let imported = try await collections.imported(claimed.id, logger: logger)
        for (index, entry) in entries.enumerated() where imported[entry.id] == nil {
            do {
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("opds-import-\(UUID().uuidString).epub")
                defer { try? FileManager.default.removeItem(at: file) }
                guard fetched < maxRunBytes else { throw Refused(description: "the run fetched \(maxRunBytes) bytes already") }
                let epub = try await fetch(entry.acquisition, claimed: claimed, limit: min(maxIngestBytes, maxRunBytes - fetched), logger: logger)
                fetched += epub.count
                try epub.write(to: file)
                let result = try await ingester.ingest(file: file, options: Ingester.Options(openAccess: true), logger: logger)
                try await collections.link(collection: claimed.id, entry: entry.id, book: result.book.id, logger: logger)
                added += 1
            } catch {
                note("\(entry.title) (\(entry.acquisition.absoluteString)): \(error)")
            }
            if index % 5 == 4 {
                try await collections.progress(claimed.id, pages: pages, seen: entries.count, added: added, errors: errors, logger: logger)
            }
        }

        // Gone from the feed: withdrawn, but only after a walk that read every page (a page that failed may hold them).
        var withdrawn = 0
        if complete {
            for (entry, _) in imported where !seen.contains(entry) {
                if let book = try await collections.unlink(collection: claimed.id, entry: entry, logger: logger),
                    try await books.withdraw(id: book, logger: logger)
                {
                    withdrawn += 1
                }
            }
        } else if imported.keys.contains(where: { !seen.contains($0) }) {
            note("some pages could not be read: no book was withdrawn")
        }
        try await collections.progress(claimed.id, pages: pages, seen: entries.count, added: added, errors: errors, logger: logger)
        try await collections.finish(claimed.id, failed: false, withdrawn: withdrawn, errors: errors, logger: logger)
        logger.info(
            "OPDS import done",
            metadata: ["collection.id": "\(claimed.id)", "pages": "\(pages)", "added": "\(added)", "withdrawn": "\(withdrawn)"]
        )
    }

    struct Refused: Error, CustomStringConvertible {
        let description: String
    }

    /// GET `url`, its body read whole up to `limit`, following at most `maxRedirects` redirects; every hop's host is
    /// checked (`OutboundAddresses`) and connected to at the address checked; the collection's credentials go only to
    /// the feed's own origin. What a failure says names no address or port beyond the URL's own.
    func fetch(_ url: URL, claimed: OPDSCollectionPostgresRepository.Claimed, limit: Int, logger: Logger) async throws -> Data {
        var url = url
        for _ in 0...Self.maxRedirects {
            guard ["http", "https"].contains(url.scheme?.lowercased() ?? ""), let host = url.host, !host.isEmpty else {
                throw Refused(description: "not an http(s) link")
            }
            let address = try await outbound.address(for: host)
            var request = HTTPClientRequest(url: url.absoluteString)
            request.headers.add(name: "Accept", value: "application/opds+json, application/atom+xml;q=0.9, */*;q=0.5")
            request.headers.add(name: "User-Agent", value: "Bookmobile OPDS import")
            if let username = claimed.username, let feed = URL(string: claimed.url), Self.sameOrigin(feed, url) {
                request.headers.add(name: "Authorization", value: "Basic " + Data("\(username):\(claimed.password ?? "")".utf8).base64EncodedString())
            }
            let client = Self.client(connectingTo: [host: address])
            do {
                let response: HTTPClientResponse
                do {
                    response = try await client.execute(request, timeout: .seconds(60), logger: logger)
                } catch {
                    logger.debug("OPDS import fetch failed", metadata: ["url": "\(url.absoluteString)", "error": "\(error)"])
                    throw Refused(description: "could not be fetched")
                }
                if [301, 302, 303, 307, 308].contains(response.status.code), let location = response.headers.first(name: "Location"),
                    let next = URL(string: location, relativeTo: url)?.absoluteURL
                {
                    try await client.shutdown()
                    url = next
                    continue
                }
                guard response.status == .ok else { throw Refused(description: "HTTP \(response.status.code)") }
                let body: Data
                do {
                    body = Data(buffer: try await response.body.collect(upTo: limit))
                } catch {
                    throw Refused(description: "larger than \(limit) bytes")
                }
                try await client.shutdown()
                return body
            } catch {
                try? await client.shutdown()
                throw error
            }
        }
        throw Refused(description: "more than \(Self.maxRedirects) redirects")
    }

    static let maxRedirects = 5

    /// A client for one fetch that connects to the checked address and hands redirects back to be checked in turn.
    static func client(connectingTo addresses: [String: String]) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.dnsOverride = addresses
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(60))
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && a.port == b.port
    }
}
