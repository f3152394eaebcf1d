import Foundation
import ServiceSupport

/// Everything the gateway reads from its configuration (README, "Configuration").
struct GatewaySettings: Sendable {
    var port: Int
    /// `BIND_ADDRESS`: loopback unless configured (containers listen on every interface).
    var bindAddress: String
    var catalogURLs: [String]
    var patronURLs: [String]
    var serviceToken: String
    var jwtSecret: String
    var jwtPreviousSecret: String?
    var maxBodyBytes: Int
    var maxIngestBytes: Int
    var upstreamTimeout: TimeInterval
    var replicaDownFor: TimeInterval
    var basicCacheFor: TimeInterval
    /// How long the gateway waits for patron's answer to a first Basic sign-in: past patron's `BCRYPT_QUEUE_SECONDS`,
    /// so that a crowd gets answers (or patron's own 503), and under `STREAM_IDLE_TIMEOUT`, which would close the
    /// client's connection first.
    var signInCheckTimeout: TimeInterval
    var sessionCheckFor: TimeInterval
    var edgeCacheLifetime: TimeInterval
    /// How long catalog's word that a shared page is a patron's own page holds without asking again.
    var sharedVerdictLifetime: TimeInterval
    var edgeCacheBytes: Int
    var heldFilesBytes: Int
    /// `HELD_FILE_WAIT`: how long a download waits for another request's first fetch of the same file.
    var heldFileWait: TimeInterval
    var trustedProxies: TrustedProxies
    /// How long a response's write may wait for the client before the connection is closed.
    var streamIdleTimeout: TimeInterval
    /// How many live event streams (`GET /me/events`) one patron may have open at once through this gateway.
    var eventStreamsPerPatron: Int
    /// How many live event streams this gateway carries at once, all patrons together.
    var eventStreamsMax: Int
    /// `DOWNLOADS_PER_PATRON` and `DOWNLOADS_MAX`: books' files sent at once for one patron and by this gateway.
    var downloadsPerPatron: Int
    var downloadsMax: Int

    init(config: ServiceConfig) throws {
        port = try config.int("GATEWAY_PORT", default: 8080)
        bindAddress = config.bindAddress
        catalogURLs = config.urls("CATALOG_URLS", default: "http://127.0.0.1:8081")
        patronURLs = config.urls("PATRON_URLS", default: "http://127.0.0.1:8082")
        serviceToken = try config.secret("SERVICE_TOKEN")
        jwtSecret = try config.secret("JWT_SECRET")
        jwtPreviousSecret = config.string("JWT_PREVIOUS_SECRET")
        maxBodyBytes = try config.int("GATEWAY_MAX_BODY_BYTES", default: 1 << 20)
        maxIngestBytes = try config.int("INGEST_MAX_BYTES", default: 200 << 20)
        upstreamTimeout = try config.duration("UPSTREAM_TIMEOUT", default: 30)
        replicaDownFor = try config.duration("REPLICA_DOWN_FOR", default: 2)
        basicCacheFor = try config.duration("BASIC_AUTH_CACHE_TTL", default: 900)
        signInCheckTimeout = try config.duration("SIGN_IN_CHECK_TIMEOUT", default: 50)
        sessionCheckFor = try config.duration("SESSION_CHECK_TTL", default: 10)
        edgeCacheLifetime = try config.duration("EDGE_CACHE_TTL", default: 5)
        sharedVerdictLifetime = try config.duration("SHARED_PAGE_VERDICT_TTL", default: 1)
        edgeCacheBytes = try config.int("EDGE_CACHE_BYTES", default: 64 << 20)
        heldFilesBytes = try config.int("HELD_FILES_BYTES", default: 256 << 20)
        heldFileWait = try config.duration("HELD_FILE_WAIT", default: 5)
        streamIdleTimeout = try config.duration("STREAM_IDLE_TIMEOUT", default: 60)
        eventStreamsPerPatron = try config.int("EVENT_STREAMS_PER_PATRON", default: 5)
        guard eventStreamsPerPatron > 0 else { throw ServiceConfig.Invalid(description: "EVENT_STREAMS_PER_PATRON must be more than 0") }
        eventStreamsMax = try config.int("EVENT_STREAMS_MAX", default: 10_000)
        guard eventStreamsMax > 0 else { throw ServiceConfig.Invalid(description: "EVENT_STREAMS_MAX must be more than 0") }
        downloadsPerPatron = try config.int("DOWNLOADS_PER_PATRON", default: 10)
        downloadsMax = try config.int("DOWNLOADS_MAX", default: 2_000)
        guard downloadsPerPatron > 0, downloadsMax > 0 else {
            throw ServiceConfig.Invalid(description: "DOWNLOADS_PER_PATRON and DOWNLOADS_MAX must be more than 0")
        }
        do {
            trustedProxies = try TrustedProxies(parsing: config.string("TRUSTED_PROXIES"), header: config.string("TRUSTED_PROXY_HEADER"))
        } catch let error as TrustedProxies.Invalid {
            throw ServiceConfig.Invalid(description: error.description)
        }
    }
}
