import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import ServiceSupport
import Shared

/// Forwards public routes to catalog or patron by path prefix (API.md), after authenticating the caller once.
///
/// Client-sent internal headers are dropped, the patron id, client address, request id and service token are
/// set, `/internal/*` is never reachable, bodies are capped, idempotent requests are retried on the next replica
/// when a connection fails, and upstream failures become 502/503/504 problem documents. Catalog's anonymous public
/// responses are answered from the edge cache (`EdgeCachePolicy`) while they may be.
struct ProxyMiddleware: RouterMiddleware {
    typealias Context = GatewayContext

    let catalog: Upstream
    let patron: Upstream
    let authenticator: PatronAuthenticator
    let token: ServiceToken
    let httpClient: HTTPClient
    let settings: GatewaySettings
    let authDocument: AuthDocumentCache
    let edgeCache: ResponseCache
    /// Catalog's word that a shared page is a patron's page as it is (the personal ETag it gave), by patron, shared
    /// ETag and the shelf version this gateway last heard for the patron: a change the patron makes through this
    /// gateway brings a new version and so a new question; a change they did not make (an offer), or made through another
    /// gateway replica, shows within `SHARED_PAGE_VERDICT_TTL`, as an anonymous page's change shows within `EDGE_CACHE_TTL`.
    let sharedVerdicts: ExpiringAnswers<String, String>
    /// The pages catalog computed for one patron (a page whose books touch their shelf, or whose feed-level parts are
    /// personal: root, groups), under the same key and for the same time as a verdict (`SHARED_PAGE_VERDICT_TTL`);
    /// after that, asked again with their ETag, so that an unchanged page costs catalog a 304 and not its bytes.
    let personalPages: ResponseCache
    /// Copies of the EPUBs patrons downloaded (`/books/{id}/fulfill`), by path: catalog still decides every download
    /// (asked with the copy's ETag, it answers 304 to a patron it allows), and the gateway sends its copy instead of
    /// catalog sending the file across the hop again.
    let heldFiles: ResponseCache
    /// First fetches of held files under way: concurrent first requests for one file wait for one copy.
    let firstFetches = FirstFetches()
    /// The newest shelf version patron reported for a patron after a change through this gateway, passed on to
    /// catalog with that patron's requests for a while (catalog's replicas learn of new versions a moment later).
    let shelfVersions = ExpiringAnswers<UUID, String>(lifetime: 60)

    func route(_ path: String) -> Upstream? {
        switch PublicService.serving(path) {
        case .catalog: catalog
        case .patron: patron
        case nil: nil
        }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path == "/internal" || path.hasPrefix("/internal/") { throw Problem.notFound("No resource at \(path)") }
        guard let upstream = route(path) else { return try await next(request, context) }

        let clientAddress = settings.trustedProxies.clientAddress(peer: context.remoteAddress?.ipAddress, headers: request.headers)
        var patronID: UUID?
        let carriesOwnCredentials = PublicService.carriesOwnCredentials(path)
        if !carriesOwnCredentials {
            switch await authenticator.authenticate(
                authorization: request.headers[.authorization],
                clientAddress: clientAddress,
                logger: context.logger
            )
            {
            case .anonymous: break
            case .patron(let id): patronID = id
            case .refused(let problem):
                return problem.status == 401 ? await authDocument.unauthorized(logger: context.logger) : problem.response()
            }
        }

        if upstream === catalog, patronID == nil, !carriesOwnCredentials, edgeCache.isEnabled, let cacheKey = EdgeCachePolicy.key(for: request) {
            return try await edgeCache.respond(to: request, key: cacheKey) {
                try await send(
                    request,
                    to: upstream,
                    patronID: patronID,
                    clientAddress: clientAddress,
                    keepAuthorization: carriesOwnCredentials,
                    cacheKey: cacheKey,
                    context: context
                )
            }
        }
        if upstream === catalog, heldFiles.isEnabled, request.method == .get, PublicService.isBookFile(path), request.headers[.range] == nil,
            request.headers[.ifNoneMatch] == nil
        {
            return try await bookFile(request, patronID: patronID, clientAddress: clientAddress, context: context)
        }
        if upstream === catalog, let patronID, edgeCache.isEnabled, EdgeCachePolicy.sharesPages(path),
            let sharedKey = EdgeCachePolicy.key(for: request, ignoringCredentials: true)
        {
            return try await personalised(request, patronID: patronID, clientAddress: clientAddress, sharedKey: sharedKey, context: context)
        }
        var response = try await send(
            request,
            to: upstream,
            patronID: patronID,
            clientAddress: clientAddress,
            keepAuthorization: carriesOwnCredentials,
            cacheKey: nil,
            context: context
        )
        if let version = response.headers[.shelfVersion] {
            response.headers[.shelfVersion] = nil
            if let patronID, upstream === patron { shelfVersions.remember(version, for: patronID) }
        }
        if upstream === catalog, ![.get, .head, .options].contains(request.method), response.status.code < 400 { edgeCache.clear() }
        if let changed = response.headers[.credentialsChanged] {
            response.headers[.credentialsChanged] = nil
            if upstream === patron, let owner = UUID(uuidString: changed) { authenticator.forget(patron: owner) }
        }
        return response
    }

    /// A signed-in feed page from the shared page this gateway holds (fetched as an anonymous visitor would when it
    /// holds none): catalog is asked only whether that page is the patron's, a 204 without a body when none of its
    /// books is on the patron's shelf, so the page's bytes do not cross the hop again; otherwise catalog's own answer.
    func personalised(_ request: Request, patronID: UUID, clientAddress: String?, sharedKey: String, context: Context) async throws -> Response {
        var shared = edgeCache.get(sharedKey) ?? edgeCache.stale(sharedKey)
        if shared == nil {
            // As an anonymous visitor's miss would: concurrent misses of the page fetch it once.
            _ = try await edgeCache.respond(to: request, key: sharedKey) {
                try await send(
                    request,
                    to: catalog,
                    patronID: nil,
                    clientAddress: clientAddress,
                    keepAuthorization: false,
                    cacheKey: sharedKey,
                    context: context
                )
            }
            shared = edgeCache.get(sharedKey)
        }
        guard let shared, let etag = shared.headers[.eTag] else {
            return try await send(
                request,
                to: catalog,
                patronID: patronID,
                clientAddress: clientAddress,
                keepAuthorization: false,
                cacheKey: nil,
                context: context
            )
        }
        let verdictKey = "\(patronID)|\(etag)|\(shelfVersions[patronID] ?? "")"
        var cacheControl = "private, no-cache"
        let personalETag: String
        if let known = sharedVerdicts[verdictKey] {
            personalETag = known
        } else {
            let response = try await throughHeldCopy(
                request,
                key: "\(verdictKey)|\(sharedKey)",
                in: personalPages,
                maxBytes: EdgeCachePolicy.maxEntryBytes,
                answerFresh: true,
                patronID: patronID,
                clientAddress: clientAddress,
                extra: [(InternalHeader.sharedETag, etag)],
                context: context
            )
            guard response.status == .noContent, response.headers[.sharedPageUsable] == "yes", let answered = response.headers[.eTag] else {
                return response
            }
            personalETag = answered
            cacheControl = response.headers[.cacheControl] ?? cacheControl
            sharedVerdicts.remember(answered, for: verdictKey)
        }
        var page = shared
        page.headers[.eTag] = personalETag
        page.headers[.cacheControl] = cacheControl
        page.headers[.age] = nil
        return page.response(to: request)
    }

    /// A book's EPUB from the copy this gateway holds, once catalog allowed the download (304 to the copy's ETag);
    /// catalog's own answer otherwise (the file, kept for the next download, or a refusal).
    func bookFile(_ request: Request, patronID: UUID?, clientAddress: String?, context: Context) async throws -> Response {
        let key = request.uri.path
        var first: FirstFetch?
        if heldFiles.get(key) == nil && heldFiles.stale(key) == nil {
            first = firstFetches.begin(key)
            if first == nil { await firstFetches.wait(for: key) }
        }
        do {
            let response = try await throughHeldCopy(
                request,
                key: key,
                in: heldFiles,
                maxBytes: EdgeCachePolicy.maxFileBytes,
                answerFresh: false,
                patronID: patronID,
                clientAddress: clientAddress,
                first: first,
                context: context
            )
            if first?.isStreaming == false { first?.end() }
            return response
        } catch {
            first?.end()
            throw error
        }
    }

    /// Catalog's answer to `request`, asked with the ETag of the copy `cache` holds under `key`: a 304 renews the copy
    /// and the copy is the answer (without `Age`: catalog has just vouched for it); a 200 with an ETag is kept for next
    /// time. With `answerFresh`, a copy still fresh is the answer without asking (a patron's page for the verdict's
    /// time); without, catalog is asked every time (a file it must allow each download of).
    func throughHeldCopy(
        _ request: Request,
        key: String,
        in cache: ResponseCache,
        maxBytes: Int,
        answerFresh: Bool,
        patronID: UUID?,
        clientAddress: String?,
        extra: [(String, String)] = [],
        first: FirstFetch? = nil,
        context: Context
    ) async throws -> Response {
        if answerFresh, var copy = cache.get(key) {
            copy.headers[.age] = nil
            return copy.response(to: request)
        }
        let held = cache.get(key) ?? cache.stale(key)
        let response = try await send(
            request,
            to: catalog,
            patronID: patronID,
            clientAddress: clientAddress,
            keepAuthorization: false,
            cacheKey: nil,
            keep: KeptCopy(cache: cache, key: key, maxBytes: maxBytes, first: first),
            extra: extra + (held?.headers[.eTag].map { [("If-None-Match", $0)] } ?? []),
            withoutConditions: true,
            context: context
        )
        guard response.status == .notModified, var held, response.headers[.eTag] == held.headers[.eTag] else { return response }
        cache.put(key, held)
        held.headers[.age] = nil
        return held.response(to: request)
    }

    /// Where a 200 with an ETag that catalog sends is kept on its way through.
    struct KeptCopy {
        let cache: ResponseCache
        let key: String
        let maxBytes: Int
        /// The first fetch of a held file this answer is, ended once the copy is kept.
        var first: FirstFetch? = nil
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
                if copy.readableBytes == length { keep.cache.put(keep.key, StoredResponse(body: copy, headers: headers)) }
                try await writer.finish(nil)
            }
        )
    }

    /// Forwards the request with the gateway's headers. An upload (`POST /admin/books`) is streamed through within
    /// `INGEST_MAX_BYTES`; other bodies are read whole within `GATEWAY_MAX_BODY_BYTES`, so that they can be sent again
    /// to another replica.
    func send(
        _ request: Request,
        to upstream: Upstream,
        patronID: UUID?,
        clientAddress: String?,
        keepAuthorization: Bool,
        cacheKey: String?,
        keep: KeptCopy? = nil,
        extra: [(String, String)] = [],
        withoutConditions: Bool = false,
        context: Context
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
        let dropConditions = cacheKey != nil || withoutConditions
        for field in request.headers
        where Self.forwards(field.name, keepAuthorization: keepAuthorization) && !(dropConditions && field.name == .ifNoneMatch) {
            headers.add(name: field.name.rawName, value: field.value)
        }
        for (name, value) in extra { headers.add(name: name, value: value) }
        headers.add(name: InternalHeader.serviceToken, value: token.value)
        headers.add(name: InternalHeader.requestID, value: RequestID.current ?? RequestID.make())
        if let patronID {
            headers.add(name: InternalHeader.patronID, value: patronID.lowercased)
            if let identity = token.identity { headers.add(name: InternalHeader.patronSignature, value: identity.signature(for: patronID)) }
            if upstream === catalog, let version = shelfVersions[patronID] { headers.add(name: InternalHeader.shelfVersion, value: version) }
        }
        if let clientAddress { headers.add(name: InternalHeader.clientAddress, value: clientAddress) }
        return try await forward(
            request,
            headers: headers,
            body: body,
            to: upstream,
            cacheKey: cacheKey,
            keep: keep,
            logger: context.logger
        )
    }

    /// What the gateway sends upstream as the body.
    enum OutboundBody {
        case buffered(ByteBuffer)
        case streamed(CappedBody, length: Int?)
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
        for replica in retriable ? candidates : [candidates[0]] {
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
                if let cacheKey, response.status == .ok, let lifetime = EdgeCachePolicy.lifetime(of: fields) {
                    fields[.requestID] = nil
                    let stored = StoredResponse(body: try await response.body.collect(upTo: EdgeCachePolicy.maxEntryBytes), headers: fields)
                    edgeCache.put(cacheKey, stored, lifetime: lifetime)
                    return stored.response(to: request)
                }
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
            }
        }
        return Problem(status: 502, slug: "upstream-unreachable", title: "Bad gateway", detail: "No \(upstream.name) replica could be reached")
            .response()
    }
}
