import Foundation
import PostgresSupport
import ServiceSupport

/// Everything the catalog service reads from its configuration (README, "Configuration").
struct CatalogSettings: Sendable {
    var port: Int
    /// `BIND_ADDRESS`: loopback unless configured (containers listen on every interface).
    var bindAddress: String
    var databaseURL: String
    var databasePool: DatabasePool
    var patronURLs: [String]
    var publicURL: String
    var serviceToken: String
    var adminToken: String
    /// `JWT_SECRET` (and `JWT_PREVIOUS_SECRET`): the key of the gateway's signature on the patron it vouches for.
    var jwtSecret: String
    var jwtPreviousSecret: String?
    var blobDirectory: URL
    var blobSweepInterval: TimeInterval
    var blobTemporaryMaxAge: TimeInterval
    var maxIngestBytes: Int
    var feedCacheLifetime: Double
    /// The shared pages' cache; patrons' own pages get half as much besides.
    var feedCacheBytes: Int

    init(config: ServiceConfig) throws {
        port = try config.int("CATALOG_PORT", default: 8081)
        bindAddress = config.bindAddress
        databaseURL = config.string("CATALOG_DATABASE_URL", default: "postgres://postgres@127.0.0.1:5433/bookmobile_catalog")
        databasePool = try DatabasePool(config: config, defaultMaximum: DatabasePool.readsDefaultMaximum)
        patronURLs = config.urls("PATRON_URLS", default: "http://127.0.0.1:8082")
        publicURL = config.string("PUBLIC_URL", default: "http://127.0.0.1:8080")
        serviceToken = try config.secret("SERVICE_TOKEN")
        adminToken = try config.secret("ADMIN_TOKEN")
        jwtSecret = try config.secret("JWT_SECRET")
        jwtPreviousSecret = config.string("JWT_PREVIOUS_SECRET")
        blobDirectory = URL(fileURLWithPath: config.string("BLOB_DIR", default: ".data/blobs"))
        blobSweepInterval = try config.duration("BLOB_SWEEP_INTERVAL", default: 3600)
        blobTemporaryMaxAge = try config.duration("BLOB_TEMP_MAX_AGE", default: 3600)
        maxIngestBytes = try config.int("INGEST_MAX_BYTES", default: 200 << 20)
        feedCacheLifetime = try config.duration("FEED_CACHE_TTL", default: 5)
        feedCacheBytes = try config.int("FEED_CACHE_BYTES", default: 64 << 20)
    }
}
