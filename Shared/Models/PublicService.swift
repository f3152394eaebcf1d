/// The service behind a public path: the gateway's routing table, kept beside the route definitions.
public enum PublicService: Sendable, Equatable {
    case catalog
    case patron

    /// The service that serves `path`, or nil for the gateway's own pages (the web app, the operator console).
    public static func serving(_ path: String) -> PublicService? {
        func under(_ prefix: String) -> Bool { path == prefix || path.hasPrefix(prefix + "/") }
        if path == "/admin" || path == "/admin/" { return nil }
        // A patron's lists are catalog's (its feeds show them).
        if under("/me/lists") { return .catalog }
        if under("/feedback") || under("/auth") || under("/me") || under("/kosync") || under("/admin/feedback") || under("/admin/circulation")
            || under("/mail") || under("/admin/mail") || under("/admin/patrons") || under("/admin/audit") || under("/admin/announcements")
            || under("/admin/reports") || under("/admin/suggestions")
        {
            return .patron
        }
        if isFeed(path) || under("/books") || under("/admin") { return .catalog }
        return nil
    }

    /// Whether `path` is one of catalog's OPDS feeds (`/opds` and below).
    public static func isFeed(_ path: String) -> Bool { path == "/opds" || path.hasPrefix("/opds/") }

    /// `/books/{id}/fulfill`: a book's EPUB, the same bytes for everyone catalog lets download it.
    public static func isBookFile(_ path: String) -> Bool { path.hasPrefix("/books/") && path.hasSuffix("/fulfill") }

    /// A book's file or one of its publication's resources (an audiobook's track, a PDF, a chapter): responses that
    /// may last as long as a listener or a slow reader takes, bounded and carried as downloads are.
    public static func isBookContent(_ path: String) -> Bool {
        isBookFile(path) || (path.hasPrefix("/books/") && path.contains("/publication/"))
    }

    /// Paths whose requests carry their own credentials (sign-in, tokens, the admin token, KOReader's sync key, mail's
    /// signed links): the
    /// gateway passes them on instead of authenticating a patron.
    public static func carriesOwnCredentials(_ path: String) -> Bool {
        path.hasPrefix("/auth/") || path.hasPrefix("/admin/") || path.hasPrefix("/kosync/") || path.hasPrefix("/mail/")
    }
}
