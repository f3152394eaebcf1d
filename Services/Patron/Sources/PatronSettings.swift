import Foundation
import PostgresSupport
import ServiceSupport

/// Everything the patron service reads from its configuration (README, "Configuration").
struct PatronSettings: Sendable {
    var port: Int
    /// Co-borrowing ("patrons who borrowed this also borrowed") counts this many distinct patrons at least, each with an
    /// account older than `coBorrowingAccountAge`.
    var coBorrowingMinimumPatrons: Int
    var coBorrowingAccountAge: TimeInterval
    /// `BIND_ADDRESS`: loopback unless configured (containers listen on every interface).
    var bindAddress: String
    var databaseURL: String
    var databasePool: DatabasePool
    var catalogURLs: [String]
    var publicURL: String
    var serviceToken: String
    var jwtSecret: String
    var jwtPreviousSecret: String?
    var adminTokens: AdminTokens
    var bcryptCost: Int
    /// Threads that run bcrypt (`BcryptWorkers`), and how long a first sign-in may queue for one before a 503.
    var bcryptWorkers: Int
    var bcryptQueueSeconds: TimeInterval
    var accessTokenLifetime: TimeInterval
    var refreshTokenLifetime: TimeInterval
    var loanPeriod: TimeInterval
    var holdOfferPeriod: TimeInterval
    var expiryInterval: TimeInterval
    var loanLimit: Int
    var holdLimit: Int
    var feedbackPerHour: Int
    var signupsPerHour: Int
    /// `CIRCULATION_HISTORY_DAYS` (`CirculationReportPostgresRepository.anonymise`).
    var circulationHistoryDays: Int
    /// `KOREADER_DOCUMENTS_PER_PATRON` (`KOSyncController`).
    var koreaderDocumentsPerPatron: Int
    /// `EMAIL_CHANGES_PER_DAY` and `EMAIL_VERIFICATIONS_PER_ADDRESS` (`EmailChangeLimits`).
    var emailChangesPerDay: Int
    var emailVerificationsPerAddress: Int
    var savedLimit: Int
    var ignoredLimit: Int
    var bookmarkLimit: Int
    var signInPolicy: SignInThrottlePolicy
    var shelfPublishInterval: TimeInterval
    /// Where the library's logo and help page live; the auth document links them only when they are set.
    /// Mail: off (nil) unless `SMTP_URL` is set.
    var smtpRelay: SMTPRelay?
    var libraryName: String
    var mailInterval: TimeInterval
    /// `EVENTS_INTERVAL`: how often new live events are numbered and streams woken (`PatronEventRelay`).
    var eventsInterval: TimeInterval
    var loanReminderBefore: TimeInterval
    var logoURL: String?
    var helpURL: String?
    /// `PATRON_AUTH`: how patrons sign in, any of `local` (sign-up, PINs and passwords kept here) and `sip2` (the
    /// library's ILS checks its cards); `sip2` then reads `SIP2_*` (`SIP2Settings`).
    var signInMethods: Set<String>
    var sip2: SIP2Settings?
    /// The library's identity provider, when `PATRON_AUTH` names `oidc` (`OIDCSettings`).
    var oidc: OIDCSettings?
    /// `PATRON_TYPE_NAMES`, `PATRON_TYPE_LIMITS` (`PatronTypeRules`).
    var patronTypes: PatronTypeRules

    init(config: ServiceConfig) throws {
        port = try config.int("PATRON_PORT", default: 8082)
        bindAddress = config.bindAddress
        databaseURL = config.string("PATRON_DATABASE_URL", default: "postgres://postgres@127.0.0.1:5433/bookmobile_patron")
        databasePool = try DatabasePool(config: config)
        catalogURLs = config.urls("CATALOG_URLS", default: "http://127.0.0.1:8081")
        publicURL = config.string("PUBLIC_URL", default: "http://127.0.0.1:8080")
        serviceToken = try config.secret("SERVICE_TOKEN")
        jwtSecret = try config.secret("JWT_SECRET")
        jwtPreviousSecret = config.string("JWT_PREVIOUS_SECRET")
        adminTokens = try AdminTokens(config: config)
        bcryptCost = try config.int("BCRYPT_COST", default: 12)
        guard (4...31).contains(bcryptCost) else { throw ServiceConfig.Invalid(description: "BCRYPT_COST must be between 4 and 31") }
        bcryptWorkers = try config.int("BCRYPT_WORKERS", default: ProcessInfo.processInfo.activeProcessorCount)
        guard bcryptWorkers >= 1 else { throw ServiceConfig.Invalid(description: "BCRYPT_WORKERS must be at least 1") }
        bcryptQueueSeconds = try config.duration("BCRYPT_QUEUE_SECONDS", default: 45)
        accessTokenLifetime = try config.duration("ACCESS_TOKEN_TTL", default: 15 * 60)
        refreshTokenLifetime = try config.duration("REFRESH_TOKEN_TTL", default: 30 * 86_400)
        loanPeriod = try config.duration("LOAN_PERIOD", default: 21 * 86_400)
        holdOfferPeriod = try config.duration("HOLD_OFFER_PERIOD", default: 3 * 86_400)
        expiryInterval = try config.duration("EXPIRY_INTERVAL", default: 30)
        loanLimit = try config.int("LOAN_LIMIT", default: 10)
        holdLimit = try config.int("HOLD_LIMIT", default: 10)
        feedbackPerHour = try config.int("FEEDBACK_PER_HOUR", default: 20)
        signupsPerHour = try config.int("SIGNUPS_PER_HOUR", default: 50)
        circulationHistoryDays = try config.int("CIRCULATION_HISTORY_DAYS", default: 180)
        guard circulationHistoryDays >= 1 else { throw ServiceConfig.Invalid(description: "CIRCULATION_HISTORY_DAYS must be at least 1") }
        koreaderDocumentsPerPatron = try config.int("KOREADER_DOCUMENTS_PER_PATRON", default: 1_000)
        guard koreaderDocumentsPerPatron > 0 else { throw ServiceConfig.Invalid(description: "KOREADER_DOCUMENTS_PER_PATRON must be more than 0") }
        emailChangesPerDay = try config.int("EMAIL_CHANGES_PER_DAY", default: 5)
        emailVerificationsPerAddress = try config.int("EMAIL_VERIFICATIONS_PER_ADDRESS", default: 3)
        savedLimit = try config.int("SAVED_LIMIT", default: 500)
        ignoredLimit = try config.int("IGNORED_LIMIT", default: 500)
        bookmarkLimit = try config.int("BOOKMARK_LIMIT", default: 5_000)
        signInPolicy = SignInThrottlePolicy()
        signInPolicy.addressFailures = try config.int("SIGN_IN_ADDRESS_FAILURES", default: 100)
        signInPolicy.addressWindow = try config.duration("SIGN_IN_ADDRESS_WINDOW", default: 600)
        signInPolicy.addressFreeFailures = try config.int("SIGN_IN_ADDRESS_FREE_FAILURES", default: 20)
        coBorrowingMinimumPatrons = max(3, try config.int("CO_BORROWING_MIN_PATRONS", default: 5))
        coBorrowingAccountAge = try config.duration("CO_BORROWING_ACCOUNT_AGE", default: 30 * 86_400)
        signInPolicy.firstBackOff = try config.duration("SIGN_IN_FIRST_BACK_OFF", default: 30)
        shelfPublishInterval = try config.duration("SHELF_PUBLISH_INTERVAL", default: 0.5)
        libraryName = config.string("LIBRARY_NAME", default: "Bookmobile")
        // Off only on a development machine: elsewhere a relay without STARTTLS would carry patrons' mail in clear.
        let requireTLS = config.string("SMTP_REQUIRE_TLS", default: config.isDevelopment ? "false" : "true").lowercased()
        guard ["true", "false"].contains(requireTLS) else { throw ServiceConfig.Invalid(description: "SMTP_REQUIRE_TLS must be true or false") }
        smtpRelay = try SMTPRelay(
            url: config.string("SMTP_URL"),
            from: config.string("MAIL_FROM", default: "library@localhost"),
            requireTLS: requireTLS == "true"
        )
        mailInterval = try config.duration("MAIL_INTERVAL", default: 2)
        eventsInterval = try config.duration("EVENTS_INTERVAL", default: 0.25)
        loanReminderBefore = try config.duration("LOAN_REMINDER_BEFORE", default: 3 * 86_400)
        logoURL = config.string("LIBRARY_LOGO_URL")
        helpURL = config.string("LIBRARY_HELP_URL")
        signInMethods = Set(
            config.string("PATRON_AUTH", default: "local").lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        )
        guard !signInMethods.isEmpty, signInMethods.isSubset(of: ["local", "sip2", "oidc"]) else {
            throw ServiceConfig.Invalid(description: "PATRON_AUTH must name one or more of local, sip2, oidc (comma-separated)")
        }
        sip2 = try SIP2Settings(config: config, methods: signInMethods)
        oidc = try OIDCSettings(config: config, methods: signInMethods)
        patronTypes = try PatronTypeRules(
            names: config.string("PATRON_TYPE_NAMES"),
            limits: config.string("PATRON_TYPE_LIMITS"),
            defaultLimits: (loanLimit, holdLimit)
        )
    }
}
