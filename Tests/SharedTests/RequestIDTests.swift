import Foundation
import ServiceSupport
import Shared
import Testing

@Suite struct RequestIDTests {
    @Test func aClientsShortPrintableIdIsKeptAndAnythingElseReplaced() {
        for kept in ["abc", "A-b_c.d:9", String(repeating: "x", count: 128)] { #expect(RequestID.accept(kept) == kept) }
        for refused in [nil, "", "has space", "é", "semi;colon", String(repeating: "x", count: 129), "new\nline"] {
            let made = RequestID.accept(refused)
            #expect(made != refused)
            #expect(UUID(uuidString: made)?.lowercased == made, "\(made)")
        }
    }

    @Test func randomIdsAreVersionFourAndDistinct() {
        var seen = Set<UUID>()
        for _ in 0..<10_000 {
            let id = UUID.random()
            let text = id.lowercased
            #expect(Array(text)[14] == "4")
            #expect("89ab".contains(Array(text)[19]))
            seen.insert(id)
        }
        #expect(seen.count == 10_000)
    }
}
