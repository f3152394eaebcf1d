import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A response kept in memory to be sent again (catalog's feed cache, the gateway's edge cache): the bytes exactly
/// as first sent, gzipped or not, and their headers, ETag included. The buffer is shared by every response that
/// sends it, never copied.
public struct StoredResponse: Sendable {
    public var body: ByteBuffer
    public var headers: HTTPFields
    /// The books the response shows (catalog's feed pages): a signed-in patron gets the shared bytes when none of
    /// them is on their shelf.
    public var bookIDs: Set<UUID>
    /// On the gateway's copy of a catalog feed page: catalog said which books it shows (`X-Internal-Page-Books`), so
    /// a signed-in patron whose shelf touches none of them gets these bytes (`PersonalPage`).
    public var sharedWithPatrons: Bool
    /// What the service made the response from, kept with it for the service's own use (catalog: the rows of a feed
    /// page, from which a patron's page with the same books is made without reading them again). Never sent.
    public var source: (any StoredSource)?

    public init(body: ByteBuffer, headers: HTTPFields, bookIDs: Set<UUID> = [], sharedWithPatrons: Bool = false) {
        self.body = body
        self.headers = headers
        self.bookIDs = bookIDs
        self.sharedWithPatrons = sharedWithPatrons
    }

    /// 304 (same headers, no body type) when the client already holds these bytes, else 200 with them.
    public func response(to request: Request) -> Response {
        if let etag = headers[.eTag], request.headers.ifNoneMatch(matches: etag) {
            var headers = headers
            headers[.contentEncoding] = nil
            headers[.contentType] = nil
            headers[.contentLength] = nil
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }
}

/// What a service keeps with a stored response (`StoredResponse.source`).
public protocol StoredSource: Sendable {
    /// About what it takes in memory: a cache counts it against its capacity with the response's bytes.
    var bytes: Int { get }
}

extension HTTPFields {
    /// True when `If-None-Match` lists `etag` (a quoted strong tag) or is `*` (RFC 9110 §13.1.2).
    public func ifNoneMatch(matches etag: String) -> Bool {
        guard let header = self[.ifNoneMatch] else { return false }
        return header.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}
