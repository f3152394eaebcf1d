import Foundation
import Shared
import Testing

@testable import PatronService

@Suite struct KOReaderPositionTests {
    let order = ["OEBPS/cover.xhtml", "OEBPS/ch1.xhtml", "OEBPS/ch2.xhtml", "OEBPS/ch3.xhtml"]

    @Test func anXPointersChapterIsTheDocFragmentItNames() {
        #expect(KOReaderPosition.chapter(of: "/body/DocFragment[12]/body/div/p[3]/text().0") == 11)
        #expect(KOReaderPosition.chapter(of: "/body/DocFragment[1]") == 0)
        #expect(KOReaderPosition.chapter(of: "/body/DocFragment[0]/body") == nil)
        #expect(KOReaderPosition.chapter(of: "42") == nil, "a PDF's page number")
        #expect(KOReaderPosition.chapter(of: "") == nil)
    }

    @Test func koreadersPlaceOpensTheWebReaderInTheChapterItNames() throws {
        let locator = try #require(KOReaderPosition.locator(percentage: 0.6, xpointer: "/body/DocFragment[3]/body/p[7]/text().12", order: order))
        #expect(locator.href == "OEBPS/ch2.xhtml")
        #expect(locator.locations.totalProgression == 0.6, "KOReader's percentage, kept as the book's progression")
        #expect(locator.locations.progression == 0.4, "0.6 of four equal chapters is 0.4 into the third")
    }

    @Test func withoutAChapterInTheBookThePercentageFindsIt() throws {
        let byShare = try #require(KOReaderPosition.locator(percentage: 0.8, xpointer: "17", order: order))
        #expect(byShare.href == "OEBPS/ch3.xhtml" && byShare.locations.progression == 0.2)
        let outside = try #require(KOReaderPosition.locator(percentage: 1, xpointer: "/body/DocFragment[9]/body", order: order))
        #expect(outside.href == "OEBPS/ch3.xhtml" && outside.locations.progression == 1, "the end of the book is the end of its last chapter")
        #expect(KOReaderPosition.locator(percentage: 0.5, xpointer: "", order: []) == nil)
    }

    @Test func theWebReadersPlaceReachesKOReaderAsItsPercentageAndItsChaptersStart() {
        let web = Locator(href: "OEBPS/ch1.xhtml#p3", locations: .init(progression: 0.5, totalProgression: 0.375))
        let (percentage, xpointer) = KOReaderPosition.progress(of: web, order: order)
        #expect(percentage == 0.375 && xpointer == "/body/DocFragment[2]/body")
        let old = Locator(href: "OEBPS/ch2.xhtml", locations: .init(progression: 0.5))
        #expect(KOReaderPosition.progress(of: old, order: order).percentage == 0.625, "without totalProgression: the chapter's share")
    }

    @Test func progressIsReadAsLeniantlyAsKoreaderSyncServerReadsIt() throws {
        func update(_ json: String) throws -> KOSync.ProgressUpdate { try JSONDecoder().decode(KOSync.ProgressUpdate.self, from: Data(json.utf8)) }
        let sent = try update(#"{"document":"abc","progress":"/body/DocFragment[2]/body","percentage":0.25,"device":"Kobo","device_id":"X1"}"#)
        #expect(sent.document == "abc" && sent.percentage == 0.25 && sent.device == "Kobo" && sent.deviceID == "X1")
        let pdf = try update(#"{"document":"abc","progress":12,"percentage":"0.5","device":"Kindle"}"#)
        #expect(pdf.progress == "12" && pdf.percentage == 0.5 && pdf.deviceID == nil)
        let wrong = try update(#"{"document":true,"progress":null,"percentage":"half"}"#)
        #expect(wrong.document == nil && wrong.progress == nil && wrong.percentage == nil)
        #expect(throws: (any Error).self) { try update("[1]") }
    }
}
