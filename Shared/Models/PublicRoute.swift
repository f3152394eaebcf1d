import Foundation

/// The public API's paths, defined once (the Swift Package Index's `SiteURL` is the model): a service registers each
/// route from its case with `.key` parameters (`router.get(.cover(.key), use: ...)`), and every link a service writes
/// into a feed, a document or a header is built from the same case with values (`PublicRoute.cover(id).url(base)`).
/// Each case names its service (`service`); `PublicService.serving`, the gateway's routing by path, must agree, and
/// `SharedRoutesTests` checks that for every case (it fails when a case has no example there).
public enum PublicRoute: RouteDefinition, Equatable {
    public typealias ID = RouteParameter<UUID>
    public typealias Name = RouteParameter<String>

    // Catalog: feeds.
    /// `/opds`: the root navigation feed.
    case catalogRoot
    /// `/opds/groups`: every lane's first books.
    case groups
    /// `/opds/lanes/{lane}`.
    case lane(Name)
    /// `/opds/series/{name}`, the name already percent-encoded as one path segment.
    case series(Name)
    /// `/opds/authors/{name}`, the name already percent-encoded as one path segment.
    case author(Name)
    /// `/opds/search` (its query: `SearchQuery`).
    case search
    /// `/opds/recommended`.
    case recommended
    /// `/opds/books/{id}`: a book's OPDS entry.
    case entry(ID)
    /// `/opds/books/{id}/related`.
    case related(ID)
    /// `/opds/shelf`: the patron's books as an OPDS feed.
    case shelfFeed
    /// `/opds/lists/{id}`: a list as a feed.
    case listFeed(ID)

    // Catalog: a book's files.
    /// `/books/{id}/publication/{resource}`: a resource of the book by its path in the EPUB; with an empty resource,
    /// the folder the Readium manifest's hrefs are relative to; the router's placeholder takes the whole rest.
    case publication(ID, resource: Name)
    /// `/books/{id}/fulfill`: the EPUB.
    case fulfill(ID)
    /// `/books/{id}/cover`.
    case cover(ID)
    /// `/books/{id}/manifest.json`: the Readium manifest.
    case manifest(ID)
    /// `/books/{id}/toc`: the table of contents as JSON.
    case tableOfContents(ID)

    // Catalog: lists, a patron's (`/me/lists`) or the staff's (`/admin/lists`).
    /// `/me/lists` or `/admin/lists`.
    case lists(ListOwner)
    /// `.../lists/{id}`.
    case list(ListOwner, ID)
    /// `.../lists/{id}/books`.
    case listBooks(ListOwner, ID)
    /// `.../lists/{id}/books/{book}`.
    case listBook(ListOwner, ID, book: ID)

    // Catalog: the operator's books.
    /// `/admin/books`: upload (POST) and the console's list (GET).
    case adminBooks
    /// `/admin/books/{id}`.
    case adminBook(ID)
    /// `/admin/books/{id}/cover`.
    case adminCover(ID)
    /// `/admin/figures`: the catalog's totals.
    case catalogFigures
    /// `/admin/marc?format=&since=`: MARC 21 records of the collection, or of its changes since a date.
    case marcExport
    /// `/admin/marc/exports`: the kept export files (GET), a new one built in the background (POST).
    case marcExports
    /// `/admin/marc/exports/{id}/file`: a kept export's file.
    case marcExportFile(ID)
    /// `/admin/lanes`: the order of the root and grouped feeds' lanes, and the hidden ones.
    case adminLanes
    /// `/admin/collections`: OPDS feeds of open-access books to import.
    case opdsCollections
    /// `/admin/collections/{id}`: one collection and its last run.
    case opdsCollection(ID)
    /// `/admin/collections/{id}/run`: asks for a run.
    case opdsCollectionRun(ID)

    // Patron: accounts.
    /// `/auth/document`: the Authentication for OPDS document.
    case authDocument
    /// `/auth/token`.
    case token
    /// `/auth/refresh`.
    case refresh
    /// `/auth/signup`.
    case signup
    /// `/auth/logout`.
    case logout
    /// `/auth/oidc/authorize?redirect_uri=&state=`: single sign-on begins (a redirect to the library's identity provider).
    case singleSignOn
    /// `/auth/oidc/callback`: where the identity provider sends the patron back.
    case singleSignOnReturn
    /// `/me/suggestions`: the patron's purchase suggestions (GET), and a new one (POST).
    case mySuggestions
    /// `/me`: the profile; `DELETE` deletes the account.
    case me
    /// `/me/settings`.
    case settings
    /// `/me/notifications`.
    case notifications
    /// `/me/notifications/{id}/read`.
    case notificationRead(ID)
    /// `/me/password`.
    case password
    /// `/me/sessions/revoke-all`.
    case revokeAllSessions
    /// `/me/export`: everything kept about the patron.
    case export

    // Patron: circulation.
    /// `/me/books`: the patron's books as JSON.
    case myBooks
    /// `/me/books/{id}`: one book's circulation state and actions.
    case myBook(ID)
    /// `/me/books/{id}/{action}`: a circulation action on one book.
    case circulation(ID, CirculationAction)
    /// `/me/ignored`: the books the patron asked not to be shown.
    case ignoredBooks
    /// `/admin/circulation`: the console's circulation dashboard.
    case circulationDashboard

    // Patron: reading.
    /// `/me/books/{id}/position`.
    case position(ID)
    /// `/me/books/{id}/progression`: the position as an OPDS Progression document.
    case progression(ID)
    /// `/me/books/{id}/bookmarks`.
    case bookmarks(ID)
    /// `/me/bookmarks/{id}`: one bookmark.
    case bookmark(ID)
    /// `/me/books/{id}/rating`.
    case rating(ID)
    /// `/me/favorites/{id}`: a book marked as a favourite.
    case favorite(ID)
    /// `/me/annotations/`: every book's annotations (W3C Web Annotations).
    case annotations
    /// `/me/annotations/{id}`: a book's annotations (GET), or one bookmark (DELETE).
    case annotation(ID)
    /// `/me/sync-keys`: the patron's KOReader sync keys (create, list).
    case syncKeys
    /// `/me/sync-keys/{id}`: one sync key (revoke).
    case syncKey(ID)

    // Patron: KOReader's sync server, koreader-sync-server's routes under `/kosync`.
    /// `/kosync/users/create`, `/kosync/users/auth`, `/kosync/syncs/progress`, `/kosync/healthcheck`.
    case kosync(KOSyncAction)
    /// `/kosync/syncs/progress/{document}`: KOReader's progress in one file.
    case kosyncProgress(Name)

    // Patron: mail.
    /// `/me/mail`: the patron's address, whether it is verified, the kinds of mail they get and its language.
    case mailSettings
    /// `/me/mail/verification`: mails a verification link to the patron's address.
    case mailVerification
    /// `/mail/verify?token=`: the page a verification link opens (GET), and its confirmation (POST).
    case mailVerify
    /// `/mail/unsubscribe?token=`: the page an unsubscribe link opens (GET), and RFC 8058's one-click POST.
    case mailUnsubscribe
    /// `/admin/mail`: the console's mail queue.
    case mailQueue
    /// `/me/events`: the patron's live events, as server-sent events.
    case events

    // Patron: the library's side (admin tokens).
    /// `/admin/patrons?q=`: patrons found by the start of a card number, username or email.
    case adminPatrons
    /// `/admin/patrons/{id}`: one patron, their loans, holds and offers, and what staff did about them.
    case adminPatron(ID)
    /// `/admin/patrons/{id}/block`: block (POST `{"reason"}`) or unblock (DELETE).
    case adminPatronBlock(ID)
    /// `/admin/patrons/{id}/secret`: a new PIN or password (POST), which ends the patron's sessions.
    case adminPatronSecret(ID)
    case adminPatronType(ID)
    /// `/admin/suggestions`: patrons' purchase suggestions, merged ones under the one they joined.
    case adminSuggestions
    /// `/admin/suggestions/{id}`: staff's answer (PUT).
    case adminSuggestion(ID)
    /// `/admin/suggestions/{id}/merge`: one suggestion joins another (POST).
    case adminSuggestionMerge(ID)
    /// `/admin/patrons/{id}/books/{book}/end`: ends the patron's loan, hold or offer of the book.
    case adminPatronBookEnd(ID, book: ID)
    /// `/admin/audit`: what staff did, newest first.
    case staffAudit
    /// `/admin/announcements`: the announcements (GET), a new one (POST).
    case adminAnnouncements
    /// `/admin/announcements/{id}`: one announcement (DELETE).
    case adminAnnouncement(ID)
    /// `/admin/reports/{report}?from=&to=`: a circulation report as JSON.
    case report(Report)
    /// `/admin/reports/{report}.csv?from=&to=`: the same report as CSV, streamed.
    case reportCSV(Report)

    /// `/feedback`.
    case feedback
    /// `/admin/feedback`: the console's feedback list.
    case feedbackList

    /// The actions on a patron's book that have a path of their own under `/me/books/{id}/`.
    /// The console's circulation reports.
    public enum Report: String, Sendable, CaseIterable {
        /// Loans, holds and returns per day.
        case circulation
        /// The books lent most often.
        case topBooks = "top-books"
        /// Books whose holds per copy exceed a ratio, with the expected wait.
        case holds
        /// Every event, the patron pseudonymised (CSV only).
        case events
    }

    public enum CirculationAction: String, Sendable, CaseIterable {
        case borrow, hold, accept, decline, dismiss, renew, suspend, resume, events, saved, ignored
        case returnLoan = "return"
    }

    /// KOReader's sync routes without a parameter, below `/kosync`.
    public enum KOSyncAction: String, Sendable, CaseIterable {
        case createUser = "/users/create"
        case auth = "/users/auth"
        case progress = "/syncs/progress"
        case healthcheck = "/healthcheck"
    }

    /// Whose lists: a signed-in patron's own, or the library staff's.
    public enum ListOwner: String, Sendable {
        case patron = "/me/lists"
        case staff = "/admin/lists"
    }

    /// The service that answers the route: one switch with no default, so a new case cannot be left without one. The
    /// gateway's routing table (`PublicService.serving`) must send each route's path there (`SharedRoutesTests`).
    public var service: PublicService {
        switch self {
        case .catalogRoot, .groups, .lane, .series, .author, .search, .recommended, .entry, .related, .shelfFeed, .listFeed, .publication,
            .fulfill, .cover, .manifest, .tableOfContents, .lists, .list, .listBooks, .listBook, .adminBooks, .adminBook, .adminCover,
            .catalogFigures, .marcExport, .marcExports, .marcExportFile, .adminLanes, .opdsCollections, .opdsCollection, .opdsCollectionRun:
            .catalog
        case .authDocument, .token, .refresh, .signup, .logout, .singleSignOn, .singleSignOnReturn, .mySuggestions, .me, .settings,
            .notifications, .notificationRead, .password, .revokeAllSessions, .export, .myBooks, .myBook, .circulation, .ignoredBooks,
            .circulationDashboard, .position, .progression, .bookmarks, .bookmark, .rating, .favorite, .annotations, .annotation, .syncKeys,
            .syncKey, .kosync, .kosyncProgress, .mailSettings, .mailVerification, .mailVerify, .mailUnsubscribe, .mailQueue, .events,
            .adminPatrons, .adminPatron, .adminPatronBlock, .adminPatronSecret, .adminPatronType, .adminSuggestions, .adminSuggestion,
            .adminSuggestionMerge, .adminPatronBookEnd, .staffAudit, .adminAnnouncements, .adminAnnouncement, .report, .reportCSV, .feedback,
            .feedbackList:
            .patron
        }
    }

    /// The path, with `:name` placeholders where the route was made with `.key`.
    public var path: String {
        switch self {
        case .catalogRoot: "/opds"
        case .groups: "/opds/groups"
        case .lane(let slug): "/opds/lanes/" + slug.segment(or: ":lane")
        case .series(let name): "/opds/series/" + name.segment(or: ":name")
        case .author(let name): "/opds/authors/" + name.segment(or: ":name")
        case .search: "/opds/search"
        case .recommended: "/opds/recommended"
        case .entry(let id): "/opds/books/" + id.segment(or: ":id")
        case .related(let id): "/opds/books/" + id.segment(or: ":id") + "/related"
        case .shelfFeed: "/opds/shelf"
        case .listFeed(let id): "/opds/lists/" + id.segment(or: ":id")
        case .publication(let id, let resource): "/books/" + id.segment(or: ":id") + PublicationPath.folder + resource.segment(or: "**")
        case .fulfill(let id): "/books/" + id.segment(or: ":id") + "/fulfill"
        case .cover(let id): "/books/" + id.segment(or: ":id") + "/cover"
        case .manifest(let id): "/books/" + id.segment(or: ":id") + "/manifest.json"
        case .tableOfContents(let id): "/books/" + id.segment(or: ":id") + "/toc"
        case .lists(let owner): owner.rawValue
        case .list(let owner, let id): owner.rawValue + "/" + id.segment(or: ":id")
        case .listBooks(let owner, let id): owner.rawValue + "/" + id.segment(or: ":id") + "/books"
        case .listBook(let owner, let id, let book): owner.rawValue + "/" + id.segment(or: ":id") + "/books/" + book.segment(or: ":book")
        case .adminBooks: "/admin/books"
        case .adminBook(let id): "/admin/books/" + id.segment(or: ":id")
        case .adminCover(let id): "/admin/books/" + id.segment(or: ":id") + "/cover"
        case .marcExport: "/admin/marc"
        case .marcExports: "/admin/marc/exports"
        case .marcExportFile(let id): "/admin/marc/exports/" + id.segment(or: ":id") + "/file"
        case .adminLanes: "/admin/lanes"
        case .opdsCollections: "/admin/collections"
        case .opdsCollection(let id): "/admin/collections/" + id.segment(or: ":id")
        case .opdsCollectionRun(let id): "/admin/collections/" + id.segment(or: ":id") + "/run"
        case .catalogFigures: "/admin/figures"
        case .authDocument: "/auth/document"
        case .token: "/auth/token"
        case .refresh: "/auth/refresh"
        case .signup: "/auth/signup"
        case .logout: "/auth/logout"
        case .singleSignOn: "/auth/oidc/authorize"
        case .singleSignOnReturn: "/auth/oidc/callback"
        case .mySuggestions: "/me/suggestions"
        case .adminSuggestions: "/admin/suggestions"
        case .adminSuggestion(let id): "/admin/suggestions/" + id.segment(or: ":id")
        case .adminSuggestionMerge(let id): "/admin/suggestions/" + id.segment(or: ":id") + "/merge"
        case .me: "/me"
        case .settings: "/me/settings"
        case .notifications: "/me/notifications"
        case .notificationRead(let id): "/me/notifications/" + id.segment(or: ":id") + "/read"
        case .password: "/me/password"
        case .revokeAllSessions: "/me/sessions/revoke-all"
        case .export: "/me/export"
        case .myBooks: "/me/books"
        case .myBook(let id): "/me/books/" + id.segment(or: ":id")
        case .circulation(let id, let action): "/me/books/" + id.segment(or: ":id") + "/" + action.rawValue
        case .ignoredBooks: "/me/ignored"
        case .circulationDashboard: "/admin/circulation"
        case .position(let id): "/me/books/" + id.segment(or: ":id") + "/position"
        case .progression(let id): "/me/books/" + id.segment(or: ":id") + "/progression"
        case .bookmarks(let id): "/me/books/" + id.segment(or: ":id") + "/bookmarks"
        case .bookmark(let id): "/me/bookmarks/" + id.segment(or: ":id")
        case .rating(let id): "/me/books/" + id.segment(or: ":id") + "/rating"
        case .favorite(let id): "/me/favorites/" + id.segment(or: ":id")
        case .annotations: "/me/annotations/"
        case .annotation(let id): "/me/annotations/" + id.segment(or: ":id")
        case .syncKeys: "/me/sync-keys"
        case .syncKey(let id): "/me/sync-keys/" + id.segment(or: ":id")
        case .kosync(let action): "/kosync" + action.rawValue
        case .kosyncProgress(let document): "/kosync/syncs/progress/" + document.segment(or: ":document")
        case .feedback: "/feedback"
        case .feedbackList: "/admin/feedback"
        case .mailSettings: "/me/mail"
        case .mailVerification: "/me/mail/verification"
        case .mailVerify: "/mail/verify"
        case .mailUnsubscribe: "/mail/unsubscribe"
        case .mailQueue: "/admin/mail"
        case .events: "/me/events"
        case .adminPatrons: "/admin/patrons"
        case .adminPatron(let id): "/admin/patrons/" + id.segment(or: ":id")
        case .adminPatronBlock(let id): "/admin/patrons/" + id.segment(or: ":id") + "/block"
        case .adminPatronSecret(let id): "/admin/patrons/" + id.segment(or: ":id") + "/secret"
        case .adminPatronType(let id): "/admin/patrons/" + id.segment(or: ":id") + "/type"
        case .adminPatronBookEnd(let id, let book): "/admin/patrons/" + id.segment(or: ":id") + "/books/" + book.segment(or: ":book") + "/end"
        case .staffAudit: "/admin/audit"
        case .adminAnnouncements: "/admin/announcements"
        case .adminAnnouncement(let id): "/admin/announcements/" + id.segment(or: ":id")
        case .report(let report): "/admin/reports/" + report.rawValue
        case .reportCSV(let report): "/admin/reports/" + report.rawValue + ".csv"
        }
    }

    /// The absolute URL under the deployment's public base URL.
    public func url(_ publicURL: String) -> String { publicURL + path }
}

/// The cases with values, as links are built: `PublicRoute.cover(book.id)`.
extension PublicRoute {
    public static func lane(_ slug: String) -> Self { .lane(.value(slug)) }
    public static func series(_ name: String) -> Self { .series(.value(name)) }
    public static func author(_ name: String) -> Self { .author(.value(name)) }
    public static func entry(_ id: UUID) -> Self { .entry(.value(id)) }
    public static func related(_ id: UUID) -> Self { .related(.value(id)) }
    public static func listFeed(_ id: UUID) -> Self { .listFeed(.value(id)) }
    /// The folder of the book's resources.
    public static func publication(_ id: UUID) -> Self { .publication(.value(id), resource: .value("")) }
    public static func fulfill(_ id: UUID) -> Self { .fulfill(.value(id)) }
    public static func cover(_ id: UUID) -> Self { .cover(.value(id)) }
    public static func manifest(_ id: UUID) -> Self { .manifest(.value(id)) }
    public static func myBook(_ id: UUID) -> Self { .myBook(.value(id)) }
    public static func circulation(_ id: UUID, _ action: CirculationAction) -> Self { .circulation(.value(id), action) }
    public static func position(_ id: UUID) -> Self { .position(.value(id)) }
    public static func progression(_ id: UUID) -> Self { .progression(.value(id)) }
    /// `?size=thumbnail` after a cover's URL: its thumbnail.
    public static let thumbnailQuery = QueryString().adding("size", "thumbnail").suffix
    /// A book's annotations, or every book's without one.
    public static func annotations(_ id: UUID?) -> Self { id.map { .annotation(.value($0)) } ?? .annotations }
}
