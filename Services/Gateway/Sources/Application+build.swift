import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceSupport
import Shared

/// Builds the gateway: its own health, metrics and OpenAPI routes, and the proxy to catalog and patron.
/// `cacheClock` is the time the response caches keep (a test moves its own).
public func buildGatewayApplication(
    config: ServiceConfig,
    cacheClock: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
) async throws -> some ApplicationProtocol {
    let settings = try GatewaySettings(config: config)
    let logger = Observability.logger(service: "gateway", config: config)
    let token = ServiceToken(settings.serviceToken, identity: PatronIdentity(secret: settings.jwtSecret, previousSecret: settings.jwtPreviousSecret))
    let catalog = Upstream(name: "catalog", replicas: settings.catalogURLs, downFor: settings.replicaDownFor)
    let patron = Upstream(name: "patron", replicas: settings.patronURLs, downFor: settings.replicaDownFor)
    let httpClient = HTTPClient.service
    let keys = await AccessTokenKeys(secret: settings.jwtSecret, previousSecret: settings.jwtPreviousSecret)
    let authenticator = PatronAuthenticator(
        keys: keys,
        patron: InternalClient(baseURLs: settings.patronURLs, token: token, timeout: .seconds(10), httpClient: httpClient),
        basicChecks: InternalClient(
            baseURLs: settings.patronURLs,
            token: token,
            timeout: .seconds(settings.signInCheckTimeout),
            httpClient: .signIn
        ),
        cacheFor: settings.basicCacheFor,
        sessionCheckFor: settings.sessionCheckFor
    )
    let publicURL = config.string("PUBLIC_URL", default: "http://127.0.0.1:\(settings.port)")

    // The gateway is public: its metrics answer only to METRICS_TOKEN (catalog's and patron's only to the services).
    let router = ServiceRouter.make(context: GatewayContext.self, metricsAccess: .bearer(config.string("METRICS_TOKEN"))) { logger in
        // Ready when at least one replica of each upstream answers its own readiness.
        for upstream in [catalog, patron] {
            var ready = false
            for replica in upstream.replicas {
                if let response = try? await httpClient.execute(
                    HTTPClientRequest(url: replica + "/health/ready"),
                    timeout: .seconds(2),
                    logger: logger
                ),
                    response.status == .ok
                {
                    ready = true
                    break
                }
            }
            if !ready { throw Problem(status: 503, slug: "upstream-down", title: "\(upstream.name) is not ready") }
        }
    }
    // The proxy to catalog and patron, one middleware per purpose, in this order (`ProxyMiddleware`).
    let edgeCache = ResponseCache(
        name: "edge",
        lifetime: .seconds(settings.edgeCacheLifetime),
        capacityBytes: settings.edgeCacheBytes,
        now: cacheClock
    )
    let sender = UpstreamSender(httpClient: httpClient, settings: settings, token: token, edgeCache: edgeCache)
    let downloads = UpstreamSender(httpClient: .downloads, settings: settings, token: token, edgeCache: edgeCache)
    let shelfSummaries = ShelfSummaries(
        catalog: InternalClient(baseURLs: settings.catalogURLs, token: token, timeout: .seconds(10), httpClient: httpClient),
        unfollowedLifetime: settings.sharedVerdictLifetime
    )
    // A patron's own page is kept under a shelf version as long as a summary may stand; 0 turns both off.
    let versionedLifetime = settings.sharedVerdictLifetime > 0 ? shelfSummaries.followedLifetime : 0
    router.addMiddleware {
        AuthenticationMiddleware(
            catalog: catalog,
            patron: patron,
            authenticator: authenticator,
            authDocument: AuthDocumentCache(patron: patron, httpClient: httpClient, publicURL: publicURL),
            trustedProxies: settings.trustedProxies
        )
        EdgeCacheMiddleware(catalog: catalog, edgeCache: edgeCache, sender: sender)
        ShelfVersionMiddleware(patron: patron, catalog: catalog)
        // A signed-in page, next after the shelf version it needs: the file middlewares never act on a page.
        PersonalPagesMiddleware(
            catalog: catalog,
            sender: sender,
            edgeCache: edgeCache,
            shelves: shelfSummaries,
            sharedVerdicts: ExpiringAnswers(lifetime: settings.sharedVerdictLifetime),
            // Past the verdict's time a copy is only ever sent after catalog's 304, so it may be held long: a patron
            // coming back to a page an hour later costs catalog a 304, not the page's bytes. Each copy is kept fresh for
            // its verdict's time (`put`'s lifetime), the longest being a versioned one's; 0 turns both off.
            personalPages: ResponseCache(
                name: "personal",
                lifetime: .seconds(versionedLifetime),
                staleFor: .seconds(3_600),
                capacityBytes: settings.edgeCacheBytes,
                now: cacheClock
            ),
            versionedLifetime: versionedLifetime
        )
        DownloadsMiddleware(
            catalog: catalog,
            downloads: ResponseSlots(
                perOwner: settings.downloadsPerPatron,
                total: settings.downloadsMax,
                names: .init(plural: "downloads", ownerFullSlug: "too-many-downloads", gatewayFullSlug: "downloads-full", retryAfter: 10)
            )
        )
        HeldFilesMiddleware(
            catalog: catalog,
            sender: downloads,
            // Every use is decided by catalog again (304), so a copy may live long: an hour, and as long again stale.
            heldFiles: ResponseCache(
                name: "files",
                lifetime: .seconds(3_600),
                capacityBytes: settings.heldFilesBytes,
                maxEntries: 10_000,
                now: cacheClock
            ),
            firstFetches: FirstFetches(patience: .milliseconds(Int(settings.heldFileWait * 1000)))
        )
        EventStreamMiddleware(
            sender: UpstreamSender(httpClient: .events, settings: settings, token: token, edgeCache: edgeCache),
            streams: ResponseSlots(
                perOwner: settings.eventStreamsPerPatron,
                total: settings.eventStreamsMax,
                names: .init(plural: "event streams", ownerFullSlug: "too-many-streams", gatewayFullSlug: "streams-full", retryAfter: 30)
            )
        )
        ProxyMiddleware(sender: sender, downloads: downloads)
    }
    WebAppRoutes(web: WebAssets(directory: WebAssets.directory(webRoot: config.string("WEB_ROOT")))).add(to: router)
    router.get("/openapi.yaml") { _, _ in
        Response(status: .ok, headers: [.contentType: "application/yaml"], body: .init(byteBuffer: .init(string: OpenAPIDocument.yaml)))
    }
    let streamIdle = TimeAmount.milliseconds(Int64(settings.streamIdleTimeout * 1000))
    var app = Application(
        router: router,
        server: .http1(
            configuration: .init(
                additionalChannelHandlers: [IdleStateHandler(writeTimeout: streamIdle), StalledWriteCloser()],
                idleTimeout: streamIdle
            )
        ),
        configuration: .init(address: .hostname(settings.bindAddress, port: settings.port), serverName: "bookmobile-gateway"),
        logger: logger
    )
    app.addServices(ShelfAnnouncementFollower(catalogURLs: settings.catalogURLs, token: token, summaries: shelfSummaries, logger: logger))
    return app
}
