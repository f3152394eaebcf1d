import Shared
import Testing

/// A query written: values encoded as unreserved characters, so that a query carries any text.
@Suite struct QueryStringTests {
    @Test func valuesAreEncodedSoThatAQueryCarriesAnyText() {
        let query = QueryString().adding("q", "a b&c=d/é").adding("none", nil).adding("n", "1")
        #expect(query.description == "q=a%20b%26c%3Dd%2F%C3%A9&n=1")
        #expect(query.suffix == "?" + query.description && QueryString().suffix.isEmpty)
    }

}
