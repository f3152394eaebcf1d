import Foundation
import TestSupport
import Testing

/// Anonymous clients cannot grow the services' memory past their caches' budgets: 3,000 requests with padded,
/// never-repeated parameters (the attack of issue 21, which took the gateway from 44 MB to 228 MB) leave the
/// gateway's and catalog's resident memory within their cache budget plus 32 MB of what it was before.
@Suite struct MemoryBoundTests {
    static let budget = 8 << 20
    static let slack = 32 << 20

    static func padding(_ count: Int) -> String {
        String((0..<count).map { _ in "abcdefghijklmnopqrstuvwxyz0123456789".randomElement()! })
    }

    @Test func paddedRequestsLeaveMemoryWithinTheCacheBudgets() async throws {
        try await Stack.run([
            "EDGE_CACHE_BYTES": "\(Self.budget)", "FEED_CACHE_BYTES": "\(Self.budget)", "EDGE_CACHE_TTL": "300s", "FEED_CACHE_TTL": "300s",
        ]) { stack in
            let api = stack.gateway
            let book = try await stack.ingest(Stack.corpus[0])
            let paths = ["/books/\(book)/toc", "/opds/lanes/new", "/opds/search?q=the", "/opds/books/\(book)", "/opds"]
            // Warm up: every route once, so that what follows measures growth, not first use.
            for path in paths { _ = try await api.call(.GET, path) }
            let (long, short) = (Self.padding(60_000), Self.padding(900))
            let gatewayBefore = try #require(stack.residentBytes(.gateway))
            let catalogBefore = try #require(stack.residentBytes(.catalog))

            // Long pads (60 KB: past the edge cache's key limit, so catalog sees them) and short ones (900 bytes:
            // each a new edge cache entry), never the same twice.
            let failures = try await withThrowingTaskGroup(of: Int.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        var failures = 0
                        for n in stride(from: worker, to: 3_000, by: 8) {
                            let path = paths[n % paths.count]
                            let pad = "\(n)-" + (n % 3 == 0 ? long : short)
                            let reply = try await api.call(.GET, path + (path.contains("?") ? "&" : "?") + "pad=\(pad)")
                            if reply.status >= 500 { failures += 1 }
                        }
                        return failures
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(failures == 0, "no padded request is a 5xx")
            let gatewayAfter = try #require(stack.residentBytes(.gateway))
            let catalogAfter = try #require(stack.residentBytes(.catalog))
            let mb = { (bytes: Int) in "\(bytes >> 20) MB" }
            print("memory: gateway \(mb(gatewayBefore)) -> \(mb(gatewayAfter)), catalog \(mb(catalogBefore)) -> \(mb(catalogAfter))")
            // The gateway holds the edge cache; catalog the feed cache and half as much for patrons' own pages.
            #expect(gatewayAfter - gatewayBefore <= Self.budget + Self.slack, "gateway \(mb(gatewayBefore)) -> \(mb(gatewayAfter))")
            #expect(catalogAfter - catalogBefore <= Self.budget * 3 / 2 + Self.slack, "catalog \(mb(catalogBefore)) -> \(mb(catalogAfter))")
        }
    }
}
