import Shared

/// What kind of publication a book is: the file a patron downloads, how a reader opens it, and the feeds' format facet.
enum BookFormat: String, Codable, Sendable, CaseIterable {
    case epub
    /// A PDF, stored as uploaded.
    case pdf
    /// A Readium audiobook package (`.audiobook`: `manifest.json` and the audio tracks, stored uncompressed), made at
    /// ingest from an M4B, MP3 files or a package.
    case audiobook

    /// The type of the stored file, as `/books/{id}/fulfill` sends it.
    var fileType: String {
        switch self {
        case .epub: MediaType.epub
        case .pdf: MediaType.pdf
        case .audiobook: MediaType.audiobookPackage
        }
    }

    var fileExtension: String {
        switch self {
        case .epub: "epub"
        case .pdf: "pdf"
        case .audiobook: "audiobook"
        }
    }

    /// The type of the book's Readium manifest (`/books/{id}/manifest.json`).
    var manifestType: String { self == .audiobook ? MediaType.audiobookManifest : MediaType.webPublication }

    /// The Readium profile the manifest conforms to (none for an EPUB's).
    var manifestProfile: String? {
        switch self {
        case .epub: nil
        case .pdf: "https://readium.org/webpub-manifest/profiles/pdf"
        case .audiobook: "https://readium.org/webpub-manifest/profiles/audiobook"
        }
    }

    var schemaType: String { self == .audiobook ? "http://schema.org/Audiobook" : "http://schema.org/Book" }

    /// The facet's name for it.
    var title: String {
        switch self {
        case .epub: "Ebooks"
        case .pdf: "PDFs"
        case .audiobook: "Audiobooks"
        }
    }
}
