import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Shared
import TestSupport
import Testing

@testable import CatalogService

/// `BLOB_REDIRECT=presigned`: a download that is allowed is answered 307 with a short-lived presigned URL of the
/// object, which gives the very bytes; one that is not allowed is refused as before, with no URL.
extension CatalogServiceTests {
    @Test func anAllowedDownloadIsARedirectToTheObjectAndARefusedOneIsNot() async throws {
        try await ObjectStorageServer.run { server in
            let settings = server.catalogSettings().merging([
                "CATALOG_DATABASE_URL": try await TestDatabase.create(prefix: "presigned"), "BLOB_DIR": blobs.path,
                "BLOB_REDIRECT": "presigned", "BLOB_REDIRECT_TTL": "2m",
            ]) { $1 }
            let free = try MinimalEPUB.write(title: "Free to all")
            let lent = try MinimalEPUB.write(title: "Lent only")
            try await buildCatalogApplication(config: TestConfig.base(settings)).testRouter { client in
                let (status, body) = try await ingest(client, free, query: "?open_access=true")
                #expect(status == .created)
                let open = try #require(body["id"] as? String)
                let location = try await client.execute(uri: "/books/\(open)/fulfill", method: .get) { response in
                    #expect(response.status == .temporaryRedirect)
                    #expect(response.headers[.cacheControl] == "private, no-store")
                    return response.headers[.location]
                }
                let url = try #require(location)
                #expect(url.hasPrefix("http://\(server.host)/\(server.bucket)/blobs/") && url.contains("X-Amz-Expires=120"), "\(url)")
                // Once more on a transport error only: the loopback S3 server once closed the connection under a full
                // run's load ("I/O on closed channel"); a wrong answer is never tried again.
                var fetched: (status: UInt, body: Data)?
                for attempt in 1...2 where fetched == nil {
                    do {
                        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
                        fetched = (response.status.code, Data(buffer: try await response.body.collect(upTo: 1 << 24)))
                    } catch  where attempt == 1 {
                        continue
                    }
                }
                #expect(fetched?.status == 200)
                #expect(fetched?.body == (try Data(contentsOf: free)))

                let (lentStatus, lentBody) = try await ingest(client, lent)
                #expect(lentStatus == .created)
                let id = try #require(lentBody["id"] as? String)
                try await client.execute(uri: "/books/\(id)/fulfill", method: .get) { response in
                    #expect(response.status == .unauthorized || response.status == .forbidden)
                    #expect(response.headers[.location] == nil)
                }
            }
        }
    }
}
