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
    /// `CATALOG_READ_DATABASE_URLS`: PostgreSQL streaming replicas for public reads (none: the primary reads too).
    var readDatabaseURLs: [String]
    /// `CATALOG_READ_MAX_LAG_BYTES`: a replica further behind the primary's log than this is left out.
    var readMaxLagBytes: UInt64
    /// `CATALOG_READ_CHECK_INTERVAL`: how often each replica's replay position is checked.
    var readCheckInterval: TimeInterval
    var patronURLs: [String]
    var publicURL: String
    var serviceToken: String
    var adminTokens: AdminTokens
    /// `JWT_SECRET` (and `JWT_PREVIOUS_SECRET`): the key of the gateway's signature on the patron it vouches for.
    var jwtSecret: String
    var jwtPreviousSecret: String?
    /// `BLOB_DIR`: the blobs themselves, or with object storage (`BLOB_STORE`) this replica's local copies of them.
    var blobDirectory: URL
    /// `BLOB_STORE=s3://bucket/prefix` and `S3_*`; nil for the local folder.
    var objectStorage: S3Location?
    /// `BLOB_CACHE_MAX_BYTES`: how much of the object storage's blobs a replica keeps on its disk.
    var blobCacheMaxBytes: Int
    /// `BLOB_REDIRECT=presigned`: downloads (`/fulfill`) answered with a short-lived presigned URL of the object.
    var blobRedirects: Bool
    /// `BLOB_REDIRECT_TTL`: how long such a URL works.
    var blobRedirectLifetime: Int
    var blobSweepInterval: TimeInterval
    /// `STAFF_JOB_INTERVAL`: how often a replica looks for an OPDS import or a MARC export file staff asked for.
    var staffJobInterval: TimeInterval
    /// `OPDS_IMPORT_ALLOW`: address blocks OPDS import may fetch from though they are not public (`OutboundAddresses`).
    var opdsImportAllow: [IPAddressBlock]
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
        readDatabaseURLs = config.urls("CATALOG_READ_DATABASE_URLS", default: "")
        readMaxLagBytes = UInt64(max(0, try config.int("CATALOG_READ_MAX_LAG_BYTES", default: 16 << 20)))
        readCheckInterval = try config.duration("CATALOG_READ_CHECK_INTERVAL", default: 0.2)
        patronURLs = config.urls("PATRON_URLS", default: "http://127.0.0.1:8082")
        publicURL = config.string("PUBLIC_URL", default: "http://127.0.0.1:8080")
        serviceToken = try config.secret("SERVICE_TOKEN")
        adminTokens = try AdminTokens(config: config)
        jwtSecret = try config.secret("JWT_SECRET")
        jwtPreviousSecret = config.string("JWT_PREVIOUS_SECRET")
        blobDirectory = URL(fileURLWithPath: config.string("BLOB_DIR", default: ".data/blobs"))
        objectStorage = try S3Location.configured(config)
        blobCacheMaxBytes = try config.int("BLOB_CACHE_MAX_BYTES", default: 2 << 30)
        switch config.string("BLOB_REDIRECT", default: "none") {
        case "none": blobRedirects = false
        case "presigned":
            guard objectStorage != nil else { throw ServiceConfig.Invalid(description: "BLOB_REDIRECT=presigned needs BLOB_STORE=s3://…") }
            blobRedirects = true
        default: throw ServiceConfig.Invalid(description: "BLOB_REDIRECT must be none or presigned")
        }
        blobRedirectLifetime = Int(try config.duration("BLOB_REDIRECT_TTL", default: 300))
        guard (1...604_800).contains(blobRedirectLifetime) else {
            throw ServiceConfig.Invalid(description: "BLOB_REDIRECT_TTL must be between 1 second and 7 days")
        }
        blobSweepInterval = try config.duration("BLOB_SWEEP_INTERVAL", default: 3600)
        staffJobInterval = try config.duration("STAFF_JOB_INTERVAL", default: 10)
        blobTemporaryMaxAge = try config.duration("BLOB_TEMP_MAX_AGE", default: 3600)
        maxIngestBytes = try config.int("INGEST_MAX_BYTES", default: 200 << 20)
        feedCacheLifetime = try config.duration("FEED_CACHE_TTL", default: 5)
        feedCacheBytes = try config.int("FEED_CACHE_BYTES", default: 64 << 20)
        opdsImportAllow = try IPAddressBlock.list(config.string("OPDS_IMPORT_ALLOW"), name: "OPDS_IMPORT_ALLOW")
    }
}
