import HTTPTypes

/// The headers that keep a book's own content (chapters, images, fonts, covers, the EPUB itself) from ever running
/// as this origin: no script, no plugin, no frame, a sandbox with an opaque origin, and no content sniffing.
/// Reading systems that need to script a chapter fetch it and render it themselves (docs/SECURITY.md).
enum ContentSecurity {
    /// For a publication resource: what a chapter legitimately uses (its images, styles, fonts and media, from
    /// this origin), nothing else.
    static let publicationPolicy =
        "default-src 'none'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; font-src 'self' data:; media-src 'self'; frame-ancestors 'self'; sandbox"
    /// For covers and downloads, which are never documents.
    static let filePolicy = "default-src 'none'; sandbox"

    static func add(_ policy: String, to headers: inout HTTPFields) {
        headers[.contentSecurityPolicy] = policy
        headers[.xContentTypeOptions] = "nosniff"
    }
}
