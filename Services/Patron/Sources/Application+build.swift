import Foundation
import Hummingbird
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// Builds the patron service: accounts and tokens, circulation, reading data, the expiry job and the outbox to
/// catalog. `main` and the tests both call it.
public func buildPatronApplication(config: ServiceConfig) async throws -> some ApplicationProtocol {
    let settings = try PatronSettings(config: config)
    let logger = Observability.logger(service: "patron", config: config)
    let database = try DatabaseURL.configuration(settings.databaseURL, pool: settings.databasePool)
    let postgres = PostgresClient(configuration: database, backgroundLogger: logger)
    var rules = CirculationRules(loanPeriod: settings.loanPeriod, offerPeriod: settings.holdOfferPeriod, publicURL: settings.publicURL)
    rules.savedLimit = settings.savedLimit
    rules.ignoredLimit = settings.ignoredLimit
    let circulation = CirculationPostgresRepository(client: postgres, rules: rules)
    let throttle = SignInThrottlePostgresRepository(client: postgres, policy: settings.signInPolicy)
    let schema = SchemaReadiness()
    let catalog = InternalClient(baseURLs: settings.catalogURLs, token: ServiceToken(settings.serviceToken))
    let shelves = ShelfPublisher(
        shelves: ShelfPostgresRepository(client: postgres, circulation: circulation),
        catalog: InternalClient(baseURLs: settings.catalogURLs, token: ServiceToken(settings.serviceToken), timeout: .seconds(2)),
        interval: settings.shelfPublishInterval,
        schema: schema,
        logger: logger
    )
    let watch = try DatabaseWatch(url: settings.databaseURL, logger: logger)
    let liveEvents = PatronEventHub()
    let router = await patronRouter(
        settings: settings,
        postgres: postgres,
        circulation: circulation,
        throttle: throttle,
        shelves: shelves,
        liveEvents: liveEvents,
        watch: watch
    )

    var app = Application(
        router: DatabaseOutageCutOff(router, watch: watch),
        configuration: .init(address: .hostname(settings.bindAddress, port: settings.port), serverName: "bookmobile-patron"),
        logger: logger
    )
    app.addServices(
        postgres,
        watch,
        ExpiryJob(
            client: postgres,
            circulation: circulation,
            changes: Circulation(store: circulation, rules: rules),
            throttle: throttle,
            interval: settings.expiryInterval,
            historyDays: settings.circulationHistoryDays,
            loanReminderBefore: settings.loanReminderBefore,
            schema: schema,
            logger: logger
        ),
        OutboxDeliverer(
            client: postgres,
            destination: catalog,
            batches: [OutboxBatch(keyPrefix: FiguresPostgresRepository.keyPrefix, path: InternalRoute.figures.path)],
            schema: schema,
            logger: logger,
            prepare: { try await FiguresPostgresRepository.queueDue(client: postgres, logger: logger) }
        ),
        shelves,
        PatronEventRelay(
            events: PatronEventPostgresRepository(client: postgres),
            hub: liveEvents,
            interval: settings.eventsInterval,
            schema: schema,
            logger: logger
        )
    )
    if let relay = settings.smtpRelay {
        app.addServices(
            MailSender(
                mail: MailPostgresRepository(client: postgres),
                relay: relay,
                signer: MailToken.Signer(secret: settings.jwtSecret),
                publicURL: settings.publicURL,
                libraryName: settings.libraryName,
                interval: settings.mailInterval,
                schema: schema,
                logger: logger
            )
        )
    }
    app.beforeServerStarts {
        try await patronSchema.apply(client: postgres, logger: logger)
        schema.markReady()
    }
    return app
}

/// Every route of the patron service, public and internal, over `postgres`.
func patronRouter(
    settings: PatronSettings,
    postgres: PostgresClient,
    circulation: CirculationPostgresRepository,
    throttle: SignInThrottlePostgresRepository,
    shelves: ShelfPublisher,
    liveEvents: PatronEventHub = PatronEventHub(),
    watch: DatabaseWatch? = nil
) async -> Router<PatronRequestContext> {
    let token = ServiceToken(settings.serviceToken, identity: PatronIdentity(secret: settings.jwtSecret, previousSecret: settings.jwtPreviousSecret))
    let accounts = AccountPostgresRepository(client: postgres)
    let hasher = PasswordHasher(cost: settings.bcryptCost, workers: settings.bcryptWorkers, maxWait: settings.bcryptQueueSeconds)
    let authenticator = Authenticator(
        accounts: accounts,
        throttle: throttle,
        hasher: hasher,
        keys: await AccessTokenKeys(secret: settings.jwtSecret, previousSecret: settings.jwtPreviousSecret),
        accessLifetime: settings.accessTokenLifetime,
        refreshLifetime: settings.refreshTokenLifetime,
        localAccounts: settings.signInMethods.contains("local"),
        ils: settings.sip2.map {
            ILSSignIn(
                client: SIP2Client(settings: $0),
                accounts: ILSAccountPostgresRepository(client: postgres),
                hasher: hasher,
                offlineGrace: $0.offlineGrace,
                types: settings.patronTypes
            )
        }
    )
    let document = AuthDocument(
        publicURL: settings.publicURL,
        logoURL: settings.logoURL,
        helpURL: settings.helpURL,
        offersSignUp: authenticator.localAccounts,
        singleSignOn: settings.oidc?.label
    )
    let profiles = ProfilePostgresRepository(client: postgres)
    let feedback = FeedbackPostgresRepository(client: postgres)

    let router = ServiceRouter.make(
        context: PatronRequestContext.self,
        readiness: HealthRoutes<PatronRequestContext>.database(postgres, watch: watch)
    )
    if let watch { router.add(middleware: DatabaseGateMiddleware(watch: watch)) }
    router.add(middleware: AuthenticationRequiredMiddleware(document: document))
    router.add(middleware: ShelfPublishMiddleware(publisher: shelves, token: token))
    // One authentication step per group: `/me` routes run only for a signed-in patron, `/admin` ones only with the admin token.
    let idempotency = IdempotencyKeyMiddleware(keys: IdempotencyPostgresRepository(client: postgres))
    let me = router.group().add(middleware: VouchedPatronMiddleware(token: token, accounts: accounts)).group(
        context: SignedInRequestContext.self
    ).add(middleware: idempotency)
    let admin = router.group().add(middleware: AdminTokenMiddleware(tokens: settings.adminTokens))
    AuthController(
        accounts: accounts,
        profiles: profiles,
        authenticator: authenticator,
        document: document,
        token: token,
        loanLimit: settings.loanLimit,
        holdLimit: settings.holdLimit,
        signupsPerHour: settings.signupsPerHour,
        announcements: AnnouncementPostgresRepository(client: postgres)
    ).add(to: router)
    let syncKeys = SyncKeyPostgresRepository(client: postgres)
    SingleSignOnController(
        provider: settings.oidc.map { IdentityProvider(settings: $0) },
        signIns: SingleSignOnPostgresRepository(client: postgres),
        authenticator: authenticator,
        syncKeys: syncKeys,
        types: settings.patronTypes,
        publicURL: settings.publicURL,
        token: token
    ).add(to: router)
    ProfileController(
        profiles: profiles,
        emailChanges: EmailChangeLimits(perPatron: settings.emailChangesPerDay, perAddress: settings.emailVerificationsPerAddress),
        notifications: NotificationPostgresRepository(client: postgres),
        circulation: circulation,
        publicURL: settings.publicURL
    ).add(to: me)
    // Circulation's changes find the patron in their own transaction (a round trip less on every borrow and return).
    let changes = Circulation(store: circulation, rules: circulation.rules)
    let circulationRoutes = router.group().add(
        middleware: VouchedPatronMiddleware(token: token, accounts: accounts, changesFindThePatronThemselves: true)
    ).group(context: SignedInRequestContext.self).add(middleware: idempotency)
    CirculationController(circulation: circulation, changes: changes).add(to: circulationRoutes)
    CirculationDashboardController(circulation: circulation).add(to: admin)
    PatronAdminController(
        directory: PatronDirectoryPostgresRepository(client: postgres),
        audit: StaffAuditPostgresRepository(client: postgres),
        circulation: circulation,
        changes: changes,
        hasher: hasher,
        types: settings.patronTypes
    ).add(to: admin)
    AnnouncementController(announcements: AnnouncementPostgresRepository(client: postgres)).add(to: admin)
    SuggestionController(suggestions: SuggestionPostgresRepository(client: postgres), audit: StaffAuditPostgresRepository(client: postgres))
        .add(me: me, admin: admin)
    ReportController(
        reports: CirculationReportPostgresRepository(client: postgres),
        audit: StaffAuditPostgresRepository(client: postgres),
        loanPeriod: settings.loanPeriod
    ).add(to: admin)
    let currentSecret = CurrentSecretCheck(accounts: accounts, hasher: hasher, throttle: throttle, token: token)
    SecretController(accounts: accounts, hasher: hasher, currentSecret: currentSecret).add(to: me)
    let bookmarks = BookmarkPostgresRepository(client: postgres)
    let positions = PositionPostgresRepository(client: postgres)
    let ratings = RatingPostgresRepository(client: postgres)
    let catalog = InternalClient(baseURLs: settings.catalogURLs, token: token)
    let readingOrder = ReadingOrderCache(catalog: catalog)
    let sync = ReadingSync(
        bookmarks: bookmarks,
        positions: positions,
        profiles: profiles,
        circulation: circulation,
        readingOrder: readingOrder,
        bookmarkLimit: settings.bookmarkLimit
    )
    BookmarkController(bookmarks: bookmarks, sync: sync).add(to: me)
    PositionController(sync: sync).add(to: me)
    ProgressionController(sync: sync, positions: positions, readingOrder: readingOrder).add(to: me)
    RatingController(ratings: ratings, sync: sync).add(to: me)
    FavoriteController(favorites: FavoritePostgresRepository(client: postgres), sync: sync).add(to: me)
    let koreaderDocuments = KOReaderDocumentPostgresRepository(client: postgres)
    ExportController(
        profiles: profiles,
        circulation: circulation,
        bookmarks: bookmarks,
        positions: positions,
        ratings: ratings,
        feedback: feedback,
        syncKeys: syncKeys,
        koreaderDocuments: koreaderDocuments,
        suggestions: SuggestionPostgresRepository(client: postgres),
        catalog: catalog
    ).add(to: me)
    SyncKeyController(keys: syncKeys, accounts: accounts, currentSecret: currentSecret, limit: SyncKeyController.keysPerPatron).add(to: me)
    EventStreamController(events: PatronEventPostgresRepository(client: postgres), hub: liveEvents).add(to: me)
    MailController(
        mail: MailPostgresRepository(client: postgres),
        signer: MailToken.Signer(secret: settings.jwtSecret),
        enabled: settings.smtpRelay != nil
    ).add(me: me, public: router, admin: admin)
    KOSyncController(
        keys: syncKeys,
        circulation: circulation,
        positions: positions,
        documents: koreaderDocuments,
        readingOrder: readingOrder,
        documentsPerPatron: settings.koreaderDocumentsPerPatron
    ).add(to: router)
    AnnotationController(sync: sync, annotations: AnnotationPostgresRepository(client: postgres), publicURL: settings.publicURL).add(to: me)
    FeedbackController(feedback: feedback, token: token, perHour: settings.feedbackPerHour).add(
        to: router,
        admin: admin
    )
    InternalController(
        authenticator: authenticator,
        circulation: circulation,
        changes: changes,
        shelves: shelves.shelves,
        taste: TastePostgresRepository(
            client: postgres,
            minimumPatrons: settings.coBorrowingMinimumPatrons,
            minimumAccountAge: settings.coBorrowingAccountAge
        ),
        suggestions: SuggestionPostgresRepository(client: postgres),
        token: token
    ).add(to: router)
    return router
}
