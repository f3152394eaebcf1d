/// The media types Bookmobile's services write and read, in one place.
public enum MediaType {
    public static let json = "application/json"
    public static let problem = "application/problem+json"
    public static let epub = "application/epub+zip"
    public static let pdf = "application/pdf"
    /// Readium audiobook manifest.
    public static let audiobookManifest = "application/audiobook+json"
    /// Readium audiobook package (`.audiobook`: the manifest and the audio in a ZIP).
    public static let audiobookPackage = "application/audiobook+zip"
    /// OPDS 1.2 navigation feed.
    public static let navigation = "application/atom+xml;profile=opds-catalog;kind=navigation"
    /// OPDS 1.2 acquisition feed.
    public static let acquisition = "application/atom+xml;profile=opds-catalog;kind=acquisition"
    /// OPDS 1.2 entry document.
    public static let entry = "application/atom+xml;type=entry;profile=opds-catalog"
    public static let opds2 = "application/opds+json"
    public static let opds2Publication = "application/opds-publication+json"
    /// Readium Web Publication Manifest.
    public static let webPublication = "application/webpub+json"
    public static let openSearch = "application/opensearchdescription+xml"
    /// Authentication for OPDS 1.0 document.
    public static let authentication = "application/vnd.opds.authentication.v1.0+json"
    /// OPDS User Profile 1.0.
    public static let opdsProfile = "application/opds-profile+json"
}
