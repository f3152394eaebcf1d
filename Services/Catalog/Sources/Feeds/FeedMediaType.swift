/// The media types of catalog's feeds, in one place.
enum FeedMediaType {
    static let navigation = "application/atom+xml;profile=opds-catalog;kind=navigation"
    static let acquisition = "application/atom+xml;profile=opds-catalog;kind=acquisition"
    static let entry = "application/atom+xml;type=entry;profile=opds-catalog"
    static let opds2 = "application/opds+json"
    static let opds2Publication = "application/opds-publication+json"
    static let openSearch = "application/opensearchdescription+xml"
    static let authentication = "application/vnd.opds.authentication.v1.0+json"
}
