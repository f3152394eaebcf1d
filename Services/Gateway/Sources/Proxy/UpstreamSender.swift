import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import ServiceSupport
import Shared

/// Sends a public request to a replica of catalog or patron with the gateway's headers, and its answer back.
///
/// Client-sent internal headers are dropped; the patron id (signed), client address, request id and service token are
/// set; bodies are capped; idempotent requests are retried on the next replica when a connection fails, and so is any
/// request that never reached a replica (its connection refused, an upload not yet read); upstream failures become
/// 502/503/504 problem documents. An answer with the call's `cacheKey` is kept in the edge cache, one with a `KeptCopy`
/// where that says.
struct UpstreamSender: Sendable {
    let httpClient: HTTPClient
    let settings: GatewaySettings
    let token: ServiceToken
    let edgeCache: ResponseCache

    /// Where a 200 with an ETag that catalog sends is kept on its way through.
    struct KeptCopy {
        let cache: ResponseCache
        let key: String
        let maxBytes: Int
        /// The first fetch of a held file this answer is, ended once the copy is kept.
        var first: FirstFetch? = nil
        /// How long the copy stays fresh; nil: the cache's own lifetime.
        var lifetime: Duration? = nil
    }

    /// Catalog's answer sent on as it arrives, each part also added to a copy that is kept once the last byte has
    /// gone out: the client's first byte does not wait for the whole file (up to 16 MB), and a download cut off
    /// keeps nothing.
    static func sentAndKept(
        _ body: HTTPClientResponse.Body,
        status: HTTPResponse.Status,
        headers: HTTPFields,
        length: Int,
        in keep: KeptCopy
    ) -> Response {
        Response(
            status: status,
            headers: headers,
            body: ResponseBody(contentLength: length) { writer in
                defer { keep.first?.end() }
                var copy = ByteBuffer()
                copy.reserveCapacity(length)
                for try await part in body {
                    copy.writeImmutableBuffer(part)
                    try await writer.write(part)
                }
                if copy.readableBytes == length { keep.cache.put(keep.key, StoredResponse(body: copy, headers: headers), lifetime: keep.lifetime) }
                try await writer.finish(nil)
            }
        )
    }

    /// Fetches again, in the background, an answer the edge cache holds stale (`call.cacheKey`: the answer is stored
    /// there). Marked as such (`X-Internal-Stale-Refresh`): catalog computes the page rather than answer with its own
    /// stale copy, which this cache would then keep for its whole TTL. Asked with the copy's ETag: a page that did not
    /// change comes back as a 304 that renews the copy (`renewed`), not as its bytes again.
    func refreshStale(_ request: Request, _ call: UpstreamCall, logger: Logger) async throws {
        let held = call.cacheKey.flatMap { edgeCache.stale($0) ?? edgeCache.get($0) }?.headers[.eTag]
        let extra = [(InternalHeader.staleRefresh, "yes")] + (held.map { [("If-None-Match", $0)] } ?? [])
        _ = try await send(request, call, extra: extra, logger: logger)
    }

    /// The edge cache's copy under `key` kept afresh, when catalog's 304 (to a refresh asked with its ETag) vouches
    /// for it: as old as the 304 says, for what is left of the copy's max-age.
    func renewed(_ key: String, by notModified: HTTPFields) -> StoredResponse? {
        guard var held = edgeCache.stale(key) ?? edgeCache.get(key), let etag = held.headers[.eTag], etag == notModified[.eTag] else { return nil }
        held.headers[.age] = notModified[.age]
        guard let lifetime = EdgeCachePolicy.lifetime(of: held.headers) else { return nil }
        edgeCache.put(key, held, lifetime: lifetime)
        return held
    }

    /// Forwards the request with the gateway's headers. An upload (`POST /admin/books`) is streamed through within
    /// `INGEST_MAX_BYTES`; other bodies are read whole within `GATEWAY_MAX_BODY_BYTES`, so that they can be sent again
    /// to another replica.
    func send(
        _ request: Request,
        _ call: UpstreamCall,
        keep: KeptCopy? = nil,
        extra: [(String, String)] = [],
        withoutConditions: Bool = false,
        logger: Logger
    ) async throws -> Response {
        let streamed = request.uri.path == "/admin/books"
        let limit = streamed ? settings.maxIngestBytes : settings.maxBodyBytes
        let declaredLength = request.headers[.contentLength].flatMap(Int.init)
        if let declaredLength, declaredLength > limit { throw Problem.tooLarge("The body must not exceed \(limit) bytes") }
        let body: OutboundBody
        if request.method == .get || request.method == .head {
            // No body to pass on; and a signed-in page may be asked of catalog twice (`personalised`).
            body = .buffered(ByteBuffer())
        } else if streamed {
            body = .streamed(CappedBody(body: request.body, limit: limit), length: declaredLength)
        } else {
            do { body = .buffered(try await request.body.collect(upTo: limit)) } catch {
                throw Problem.tooLarge("The body must not exceed \(limit) bytes")
            }
        }

        var headers = HTTPHeaders()
        // What the cache keeps must be a whole 200, not a 304 that only this client could use; the same for a page
        // the gateway completes itself.
        let dropConditions = call.cacheKey != nil || withoutConditions
        for field in request.headers
        where Self.forwards(field.name, keepAuthorization: call.carriesOwnCredentials) && !(dropConditions && field.name == .ifNoneMatch) {
            headers.add(name: field.name.rawName, value: field.value)
        }
        for (name, value) in extra { headers.add(name: name, value: value) }
        headers.add(name: InternalHeader.serviceToken, value: token.value)
        headers.add(name: InternalHeader.requestID, value: RequestID.current ?? RequestID.make())
        if let patronID = call.patronID {
            headers.add(name: InternalHeader.patronID, value: patronID.lowercased)
            if let identity = token.identity { headers.add(name: InternalHeader.patronSignature, value: identity.signature(for: patronID)) }
            if let version = call.shelfVersion { headers.add(name: InternalHeader.shelfVersion, value: version) }
        }
        if let clientAddress = call.clientAddress { headers.add(name: InternalHeader.clientAddress, value: clientAddress) }
        return try await forward(
            request,
            headers: headers,
            body: body,
            to: call.upstream,
            cacheKey: call.cacheKey,
            keep: keep,
            logger: logger
        )
    }

    /// What the gateway sends upstream as the body.
    enum OutboundBody {
        case buffered(ByteBuffer)
        case streamed(CappedBody, length: Int?)

        /// Whether it can still be sent: a streamed body only until an upstream request started reading it.
        var untouched: Bool {
            switch self {
            case .buffered: true
            case .streamed(let stream, _): stream.reads.untouched
            }
        }
    }

    /// Whether a failed call's request never left the gateway: the connection was refused or never made.
    static func neverSent(_ error: any Error) -> Bool {
        switch error {
        case let error as IOError: error.errnoCode == ECONNREFUSED
        case let error as HTTPClientError: error == .connectTimeout
        case ChannelError.connectTimeout: true
        default: false
        }
    }

    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "upgrade", "trailer", "host",
        "content-length",
    ]

    /// Proxy headers a client may send: the gateway has read what it trusts of them (`TrustedProxies`) and passes the
    /// result on as `X-Client-Address`, never the headers themselves.
    static let forwardingHeaders: Set<String> = ["forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-real-ip"]

    /// Headers passed upstream: not hop-by-hop, not internal, and `Authorization` only where the service reads it.
    static func forwards(_ name: HTTPField.Name, keepAuthorization: Bool) -> Bool {
        let lower = name.canonicalName
        if hopByHop.contains(lower) || lower.hasPrefix("x-patron") || lower.hasPrefix("x-internal") || lower == "x-service-token"
            || lower == "x-client-address" || lower == "x-request-id" || forwardingHeaders.contains(lower)
        {
            return false
        }
        return lower != "authorization" || keepAuthorization
    }

    /// Sends the request to a replica of `upstream` and passes its answer back (read whole up to `answerReadWholeBytes`,
    /// streamed past that); with a `cacheKey`, an answer the edge cache may keep is read whole and stored; with `keep`,
    /// a 200 with an ETag (a page catalog computed for the patron, a book's file) is read whole and kept where it says.
    func forward(
        _ request: Request,
        headers: HTTPHeaders,
        body: OutboundBody,
        to upstream: Upstream,
        cacheKey: String?,
        keep: KeptCopy? = nil,
        logger: Logger
    ) async throws -> Response {
        let candidates = upstream.candidates()
        guard !candidates.isEmpty else {
            return Problem(
                status: 503,
                slug: "upstream-down",
                title: "Service unavailable",
                detail: "Every \(upstream.name) replica is down",
                retryAfter: 2
            ).response()
        }
        // An upload's body must not be read by the upstream request any longer once the answer goes back (`CappedBody`);
        // its answer (short: a book's id, or a problem) is read whole first, as the upstream may answer before it has
        // read the whole upload (a refusal), and the upstream request ends when its body is released.
        if case .streamed(let stream, _) = body {
            do {
                let response = try await forward(
                    request,
                    headers: headers,
                    body: body,
                    to: upstream,
                    candidates: candidates,
                    cacheKey: nil,
                    keep: nil,
                    readWhole: true,
                    logger: logger
                )
                await stream.reads.release()
                return response
            } catch {
                await stream.reads.release()
                throw error
            }
        }
        return try await forward(
            request,
            headers: headers,
            body: body,
            to: upstream,
            candidates: candidates,
            cacheKey: cacheKey,
            keep: keep,
            readWhole: false,
            logger: logger
        )
    }

    /// The most of an upload's answer the gateway reads (`forward`).
    static let uploadAnswerBytes = 1 << 20

    /// Answers up to this size (a feed page, a patron's books) are read whole and sent on at once; larger ones (EPUBs,
    /// covers of some size, publication resources) are streamed, so that memory stays bounded by connections.
    static let answerReadWholeBytes = 256 << 10

    /// `forward` to the first of `candidates` that answers.
    private func forward(
        _ request: Request,
        headers: HTTPHeaders,
        body: OutboundBody,
        to upstream: Upstream,
        candidates: [String],
        cacheKey: String?,
        keep: KeptCopy?,
        readWhole: Bool,
        logger: Logger
    ) async throws -> Response {
        let method = HTTPMethod(rawValue: request.method.rawValue)
        let idempotent = [.GET, .HEAD, .PUT, .DELETE, .OPTIONS].contains(method)
        let target = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
        var retriable = idempotent
        if case .streamed = body { retriable = false }
        for replica in candidates {
            var outbound = HTTPClientRequest(url: replica + target)
            outbound.method = method
            outbound.headers = headers
            switch body {
            case .buffered(let bytes): if bytes.readableBytes > 0 { outbound.body = .bytes(bytes) }
            case .streamed(let stream, let length): outbound.body = .stream(stream, length: length.map { .known(Int64($0)) } ?? .unknown)
            }
            do {
                let response = try await httpClient.execute(outbound, timeout: .milliseconds(Int64(settings.upstreamTimeout * 1000)), logger: logger)
                upstream.markUp(replica)
                var fields = HTTPFields()
                for header in response.headers where !Self.hopByHop.contains(header.name.lowercased()) || header.name.lowercased() == "content-length"
                {
                    if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
                }
                // Internal: kept with the edge cache's copy of the page, never passed on.
                let pageBooks = fields[.pageBooks].flatMap(PersonalPage.pageBooks(fromHeader:))
                fields[.pageBooks] = nil
                if let cacheKey, response.status == .ok, let lifetime = EdgeCachePolicy.lifetime(of: fields) {
                    fields[.requestID] = nil
                    let stored = StoredResponse(
                        body: try await response.body.collect(upTo: EdgeCachePolicy.maxEntryBytes),
                        headers: fields,
                        bookIDs: pageBooks ?? [],
                        sharedWithPatrons: pageBooks != nil
                    )
                    edgeCache.put(cacheKey, stored, lifetime: lifetime)
                    return stored.response(to: request)
                }
                if let cacheKey, response.status == .notModified, let held = renewed(cacheKey, by: fields) { return held.response(to: request) }
                let status = HTTPResponse.Status(code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase)
                let length = fields[.contentLength].flatMap(Int.init)
                if let keep, response.status == .ok, fields[.eTag] != nil, let length, length <= keep.maxBytes {
                    fields[.requestID] = nil
                    keep.first?.streamingStarted()
                    return Self.sentAndKept(response.body, status: status, headers: fields, length: length, in: keep)
                }
                // Read whole: an upload's answer (see `forward` above), and any answer up to `answerReadWholeBytes`, sent
                // on in one write (streamed, each part the upstream connection read was another hop between threads).
                if let limit = readWhole ? Self.uploadAnswerBytes : length.flatMap({ $0 <= Self.answerReadWholeBytes ? $0 : nil }) {
                    return Response(status: status, headers: fields, body: .init(byteBuffer: try await response.body.collect(upTo: limit)))
                }
                return Response(status: status, headers: fields, body: ResponseBody(asyncSequence: response.body))
            } catch is CappedBody.TooLarge {
                throw Problem.tooLarge("The body must not exceed \(settings.maxIngestBytes) bytes")
            } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
                logger.warning("Upstream timed out", metadata: ["upstream": "\(upstream.name)", "replica": "\(replica)"])
                return Problem(status: 504, slug: "upstream-timeout", title: "Gateway timeout", detail: "\(upstream.name) did not answer in time")
                    .response()
            } catch {
                logger.warning("Upstream unreachable", metadata: ["upstream": "\(upstream.name)", "replica": "\(replica)", "error": "\(error)"])
                upstream.markDown(replica)
                // Any request, an upload too, goes on to the next replica when this one never received it (a replica
                // starting or stopping refuses connections); one that may have reached it is sent again only when
                // idempotent.
                guard retriable || (Self.neverSent(error) && body.untouched) else { break }
            }
        }
        return Problem(status: 502, slug: "upstream-unreachable", title: "Bad gateway", detail: "No \(upstream.name) replica could be reached")
            .response()
    }
}
