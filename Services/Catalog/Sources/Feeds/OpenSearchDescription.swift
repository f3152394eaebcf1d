import NIOCore
import ServiceSupport
import Shared

/// `GET /opds/search` without a query: the OpenSearch description that tells a client how to search.
enum OpenSearchDescription {
    static func response(publicURL: String) -> StoredResponse {
        let search = PublicRoute.search.url(publicURL)
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">
            <ShortName>Bookmobile</ShortName>
            <Description>Search the library's catalog</Description>
            <InputEncoding>UTF-8</InputEncoding>
            <OutputEncoding>UTF-8</OutputEncoding>
            <Url type="\(MediaType.acquisition)" template="\(search)?q={searchTerms}"/>
            <Url type="\(MediaType.opds2)" template="\(search)?q={searchTerms}"/>
            </OpenSearchDescription>
            """
        return StoredResponse(
            body: ByteBuffer(string: xml),
            headers: [.contentType: MediaType.openSearch, .cacheControl: "public, max-age=3600"]
        )
    }
}
