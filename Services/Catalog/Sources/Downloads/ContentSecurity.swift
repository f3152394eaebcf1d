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

    /// The type a publication resource is served with: a book's scripts as plain text, so that no page of this origin
    /// (whose policy allows scripts from 'self') could ever load one as a script; with `nosniff`, browsers refuse to.
    /// Readers that run a book's scripts fetch them and run them in their own sandbox.
    static func servedType(_ declared: String) -> String {
        let essence = declared.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let scripts: Set<String> = [
            "application/javascript", "text/javascript", "application/ecmascript", "text/ecmascript", "application/x-javascript",
            "text/x-javascript", "module", "text/jscript", "application/wasm",
        ]
        return scripts.contains(essence) ? "text/plain; charset=utf-8" : declared
    }

    static func add(_ policy: String, to headers: inout HTTPFields) {
        headers[.contentSecurityPolicy] = policy
        headers[.xContentTypeOptions] = "nosniff"
    }
}
