import Foundation
import Hummingbird
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// The parts of the catalog service, shared by the HTTP server and the `ingest` command.
struct CatalogDependencies: Sendable {
    let settings: CatalogSettings
    let logger: Logger
    let postgres: PostgresClient
    let blobs: any BlobStore
    let books: BookPostgresRepository
    /// The public reads' books: on a read replica when one is usable (`CATALOG_READ_DATABASE_URLS`), else the primary.
    let readBooks: BookPostgresRepository
    let readReplicas: ReadReplicas?
    let ingester: Ingester
    let patron: InternalClient
    let token: ServiceToken
    let shelves: ShelfCopyPostgresRepository
    /// Whether the database answers (`DatabaseGateMiddleware`, readiness).
    let watch: DatabaseWatch
    /// The time the feed caches keep (a test moves its own).
    var cacheClock: @Sendable () -> ContinuousClock.Instant = { .now }

    init(config: ServiceConfig) throws {
        settings = try CatalogSettings(config: config)
        logger = Observability.logger(service: "catalog", config: config)
        postgres = PostgresClient(
            configuration: try DatabaseURL.configuration(settings.databaseURL, pool: settings.databasePool),
            backgroundLogger: logger
        )
        watch = try DatabaseWatch(url: settings.databaseURL, logger: logger)
        let folder = try DirectoryBlobStore(root: settings.blobDirectory)
        if let location = settings.objectStorage {
            blobs = S3BlobStore(
                client: S3Client(location: location),
                cache: folder,
                cacheMaxBytes: settings.blobCacheMaxBytes,
                redirects: settings.blobRedirects,
                redirectLifetime: settings.blobRedirectLifetime,
                logger: logger
            )
        } else {
            blobs = folder
        }
        books = BookPostgresRepository(client: postgres)
        if settings.readDatabaseURLs.isEmpty {
            readReplicas = nil
            readBooks = books
        } else {
            let replicas = try ReadReplicas(
                primary: postgres,
                replicaURLs: settings.readDatabaseURLs,
                pool: settings.databasePool,
                maxLagBytes: settings.readMaxLagBytes,
                checkInterval: .milliseconds(Int(settings.readCheckInterval * 1000)),
                logger: logger
            )
            readReplicas = replicas
            readBooks = BookPostgresRepository(reads: replicas)
        }
        ingester = Ingester(client: postgres, blobs: blobs, books: books)
        token = ServiceToken(
            settings.serviceToken,
            identity: PatronIdentity(secret: settings.jwtSecret, previousSecret: settings.jwtPreviousSecret)
        )
        patron = InternalClient(baseURLs: settings.patronURLs, token: token)
        shelves = ShelfCopyPostgresRepository(client: postgres)
    }
}

/// Builds the catalog service: ingest, feeds, search, covers, downloads, and the outbox to patron.
public func buildCatalogApplication(config: ServiceConfig) async throws -> some ApplicationProtocol {
    try await buildCatalogApplication(parts: try CatalogDependencies(config: config))
}

/// The service from parts made already (tests keep a hold on them).
func buildCatalogApplication(parts: CatalogDependencies) async throws -> some ApplicationProtocol {
    var app = Application(
        router: DatabaseOutageCutOff(catalogRouter(parts), watch: parts.watch),
        configuration: .init(address: .hostname(parts.settings.bindAddress, port: parts.settings.port), serverName: "bookmobile-catalog"),
        logger: parts.logger
    )
    let schema = SchemaReadiness()
    let sweeper = BlobSweeper(
        blobs: parts.blobs,
        references: BlobReferencePostgresRepository(client: parts.postgres),
        interval: parts.settings.blobSweepInterval,
        temporaryMaxAge: parts.settings.blobTemporaryMaxAge,
        schema: schema,
        logger: parts.logger
    )
    app.addServices(
        parts.postgres,
        parts.watch,
        OutboxDeliverer(
            client: parts.postgres,
            destination: parts.patron,
            batches: [OutboxBatch(keyPrefix: BookPostgresRepository.licenseKeyPrefix, path: InternalRoute.licenses.path)],
            schema: schema,
            logger: parts.logger
        ),
        sweeper,
        ShelfCopyListener(client: parts.postgres, memory: parts.shelves.memory, logger: parts.logger),
        OPDSImportRunner(
            collections: OPDSCollectionPostgresRepository(client: parts.postgres),
            importer: OPDSImporter(
                collections: OPDSCollectionPostgresRepository(client: parts.postgres),
                ingester: parts.ingester,
                books: parts.books,
                maxIngestBytes: parts.settings.maxIngestBytes,
                outbound: OutboundAddresses(allowed: parts.settings.opdsImportAllow)
            ),
            interval: parts.settings.staffJobInterval,
            schema: schema,
            logger: parts.logger
        ),
        MARCExportRunner(
            jobs: MARCExportJobPostgresRepository(client: parts.postgres),
            export: MARCExport(books: MARCExportPostgresRepository(client: parts.postgres), publicURL: parts.settings.publicURL),
            blobs: parts.blobs,
            interval: parts.settings.staffJobInterval,
            schema: schema,
            logger: parts.logger
        )
    )
    if let replicas = parts.readReplicas { app.addServices(replicas) }
    app.beforeServerStarts {
        try await catalogSchema.apply(client: parts.postgres, logger: parts.logger)
        // The schema is a write too: no replica is read before it has replayed it (a new function, a new column).
        await parts.readReplicas?.announceWrite(logger: parts.logger)
        schema.markReady()
        if let objects = parts.blobs as? S3BlobStore { objects.probeInBackground() }
    }
    return app
}

/// Every route of the catalog service, public, admin and internal.
func catalogRouter(_ parts: CatalogDependencies) -> Router<CatalogRequestContext> {
    let router = ServiceRouter.make(
        context: CatalogRequestContext.self,
        readiness: HealthRoutes<CatalogRequestContext>.database(parts.postgres, watch: parts.watch)
    )
    router.add(middleware: DatabaseGateMiddleware(watch: parts.watch))
    let feedCache = ResponseCache(
        name: "feed",
        lifetime: .seconds(parts.settings.feedCacheLifetime),
        capacityBytes: parts.settings.feedCacheBytes,
        now: parts.cacheClock
    )
    router.add(middleware: CallerMiddleware(token: parts.token))
    if let replicas = parts.readReplicas { router.add(middleware: WritesAnnouncedMiddleware<CatalogRequestContext>(replicas: replicas)) }
    let admin = router.group().add(middleware: AdminTokenMiddleware(tokens: parts.settings.adminTokens))
    AdminController(ingester: parts.ingester, maxIngestBytes: parts.settings.maxIngestBytes, feedCache: feedCache).add(to: admin)
    OPDSImportController(collections: OPDSCollectionPostgresRepository(client: parts.postgres)).add(to: admin)
    MARCController(
        export: MARCExport(books: MARCExportPostgresRepository(client: parts.postgres), publicURL: parts.settings.publicURL),
        jobs: MARCExportJobPostgresRepository(client: parts.postgres),
        blobs: parts.blobs
    ).add(to: admin)
    let shelves = PatronShelves(copies: parts.shelves, patron: parts.patron)
    let lists = BookListPostgresRepository(client: parts.postgres)
    ListsController(lists: lists, publicURL: parts.settings.publicURL, feedCache: feedCache).add(to: router, admin: admin)
    let access = BookAccess(patron: parts.patron, shelves: shelves)
    BooksController(books: parts.readBooks, blobs: parts.blobs, access: access).add(to: router)
    PublicationController(books: parts.readBooks, blobs: parts.blobs, access: access, publicURL: parts.settings.publicURL).add(to: router)
    let feedController = FeedController(
        feeds: FeedPostgresRepository(books: parts.readBooks),
        shelves: shelves,
        discovery: PatronDiscovery(patron: parts.patron),
        lists: lists,
        arrangement: LaneArrangementPostgresRepository(client: parts.postgres),
        publicURL: parts.settings.publicURL,
        cache: feedCache,
        personalCache: ResponseCache(
            name: "personal",
            lifetime: .seconds(parts.settings.feedCacheLifetime),
            capacityBytes: parts.settings.feedCacheBytes / 2,
            now: parts.cacheClock
        )
    )
    feedController.add(to: router)
    LaneArrangementController(
        feeds: feedController,
        arrangement: LaneArrangementPostgresRepository(client: parts.postgres),
        feedCache: feedCache
    ).add(to: admin)
    InternalController(books: parts.books, shelfCopies: parts.shelves, shelves: shelves, lists: lists, token: parts.token).add(to: router)
    return router
}
