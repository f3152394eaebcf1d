import Shared
import Testing

/// A query written and read back: values encoded as unreserved characters, and a form's `+` read as a space.
@Suite struct QueryStringTests {
    @Test func valuesAreEncodedSoThatAQueryCarriesAnyText() {
        let query = QueryString().adding("q", "a b&c=d/é").adding("none", nil).adding("n", "1")
        #expect(query.description == "q=a%20b%26c%3Dd%2F%C3%A9&n=1")
        #expect(query.suffix == "?" + query.description && QueryString().suffix.isEmpty)
    }

    @Test func aFormValueReadsPlusAsASpaceAndAnEncodedPlusAsAPlus() {
        #expect(QueryString.formValue("device", in: "purpose=sync-key&device=Kobo+Clara") == "Kobo Clara")
        #expect(QueryString.formValue("device", in: "device=Kobo%20Clara%2B&device=second") == "Kobo Clara+", "the first value")
        #expect(QueryString.formValue("device", in: "device=&x=1") == "")
        #expect(QueryString.formValue("device", in: "device") == "")
        #expect(QueryString.formValue("device", in: "devices=1&x=device") == nil)
        #expect(QueryString.formValue("device", in: "device=%E9") == nil, "not UTF-8 once decoded")
        #expect(QueryString.formValue("device", in: "") == nil)
    }
}
