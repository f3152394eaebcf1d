import Foundation
import Shared
import Testing

@testable import CatalogService

@Suite struct OPDS2RendererTests {
    /// A publication's `published` is written when the schema takes it: the byte-by-byte check agrees with the
    /// regular expression (or a full timestamp) it stands in for.
    @Test func aPublicationDateIsWhatTheExpressionOrATimestampTakes() {
        let inputs = [
            "2001", "2001-09", "2001-09-11", "2001-9-11", "01-09-11", "20010911", "2001-09-11T08:46:00Z", "2001-09-11T08:46:00.000Z",
            "September 2001", "", "2001-", "2001-09-", "200a", "2001\n", "2001-09-11\r\n", "٢٠٠١", "2001-09-11 ", " 2001", "c. 1850",
            "1850?", "2001/09/11",
        ]
        for text in inputs {
            let expected =
                WireFormat.parseDate(text) != nil || text.range(of: #"^\d{4}(-\d{2}(-\d{2})?)?$"#, options: .regularExpression) != nil
            #expect(OPDS2Renderer.isPublicationDate(text) == expected, "\(text.debugDescription)")
        }
    }
}
