import Foundation
import Testing

@testable import PatronService

/// SIP2's wire format and what a patron information reply says, against frames pysip2's server sent.
@Suite struct SIP2FrameTests {
    let child = Array(
        "64              00020261205    181055000000000000000000000000AObookmobile-test|AA23330000000004|AETom Thumb|BLY|CQY|PCchild|AY1AZDF20".utf8
    )
    let blocked = Array(
        "64Y         Y   00020261205    181055000000000000000000000000AObookmobile-test|AA23330000000002|AECharles Babbage|BLY|CQY|AFFines over the limit: 25.00|PCadult|AY1AZD2B1"
            .utf8
    )
    let unknown = Array("64              00020261205    181055000000000000000000000000AObookmobile-test|AA23330000000009|AE|BLN|CQN|AY1AZE594".utf8)

    @Test func aRequestCarriesItsFieldsAndTheChecksumTheStandardDefines() {
        let login = SIP2Frame.encode(command: "93", fixed: "00", fields: [("CN", "bm"), ("CO", "pw"), ("CP", "main")], sequence: 1, encoding: .cp850)
        // The same message as pysip2's `calculate_checksum` sees it.
        #expect(String(decoding: login, as: UTF8.self) == "9300CNbm|COpw|CPmain|AY1AZF749\r")
        let plain = SIP2Frame.encode(command: "23", fixed: "000", fields: [("AA", "12|34\r")], sequence: nil, encoding: .cp850)
        #expect(String(decoding: plain, as: UTF8.self) == "23000AA1234|\r", "a value cannot end its field or the message early")
    }

    @Test func aReplyIsReadFieldByFieldAndItsChecksumMustHold() throws {
        let reply = try SIP2Frame.parse(blocked, fixedLength: 59, encoding: .cp850)
        #expect(reply.command == "64")
        #expect(reply["AE"] == "Charles Babbage" && reply["PC"] == "adult" && reply.all("AF") == ["Fines over the limit: 25.00"])
        #expect(reply.fixed(0, 14) == "Y         Y   ")
        var damaged = blocked
        damaged[80] = UInt8(ascii: "x")
        #expect(throws: SIP2Frame.Malformed.self) { try SIP2Frame.parse(damaged, fixedLength: 59, encoding: .cp850) }
        #expect(throws: SIP2Frame.Malformed.self) { try SIP2Frame.parse(Array("64Y".utf8), fixedLength: 59, encoding: .cp850) }
        let noTrailer = try SIP2Frame.parse(Array("941".utf8), fixedLength: 1, encoding: .cp850)
        #expect(noTrailer.command == "94" && noTrailer.fixed == "1")
    }

    @Test func codePage850CarriesANameWithAccents() throws {
        let bytes = SIP2Encoding.cp850.encode("Zoë Lefèvre")
        #expect(bytes.contains(0x89) && bytes.contains(0x8A))
        #expect(SIP2Encoding.cp850.decode(bytes) == "Zoë Lefèvre")
        #expect(SIP2Encoding.utf8.decode(SIP2Encoding.utf8.encode("Zoë")) == "Zoë")
        #expect(SIP2Encoding.latin1.decode(SIP2Encoding.latin1.encode("Zoë")) == "Zoë")
    }

    @Test func theILSsAnswerSaysWhoMayBorrowAndWhy() throws {
        let childPatron = ILSPatron(reply: try SIP2Frame.parse(child, fixedLength: 59, encoding: .cp850))
        #expect(childPatron == ILSPatron(validPatron: true, validPIN: true, name: "Tom Thumb", patronType: "child"))
        let blockedPatron = ILSPatron(reply: try SIP2Frame.parse(blocked, fixedLength: 59, encoding: .cp850))
        #expect(blockedPatron.blockReason == "Fines over the limit: 25.00", "the ILS's own words")
        let unknownPatron = ILSPatron(reply: try SIP2Frame.parse(unknown, fixedLength: 59, encoding: .cp850))
        #expect(!unknownPatron.validPatron && !unknownPatron.validPIN && unknownPatron.name == nil)

        // Without a screen message, the flags name the reason; a renewal limit alone blocks nothing.
        let flags = SIP2Frame.Reply(command: "64", fixed: "    Y         " + String(repeating: "0", count: 45), fields: [])
        #expect(ILSPatron(reply: flags).blockReason == "card reported lost")
        let renewals = SIP2Frame.Reply(command: "64", fixed: "       Y      " + String(repeating: "0", count: 45), fields: [])
        #expect(ILSPatron(reply: renewals).blockReason == nil)
        // A card past its expiry date (`PA`) is blocked; one good through today is not.
        let today = Date(timeIntervalSince1970: 1_765_000_000)  // 2025-12-06
        let expired = SIP2Frame.Reply(command: "64", fixed: String(repeating: " ", count: 59), fields: [.init(code: "PA", value: "20251205")])
        #expect(ILSPatron(reply: expired, today: today).blockReason == "card expired")
        let lastDay = SIP2Frame.Reply(command: "64", fixed: String(repeating: " ", count: 59), fields: [.init(code: "PA", value: "20251206")])
        #expect(ILSPatron(reply: lastDay, today: today).blockReason == nil)
    }
}
