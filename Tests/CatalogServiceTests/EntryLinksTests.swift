import Foundation
import Shared
import Testing

@testable import CatalogService

/// The acquisition and action links of an entry follow the patron's state of the book: each link leads to an
/// action the book-state machine allows from that state.
@Suite struct EntryLinksTests {
    static let id = UUID()
    static let base = "https://library.example"
    static let me = "\(base)/me/books/\(id.uuidString.lowercased())"
    static let fulfill = "\(base)/books/\(id.uuidString.lowercased())/fulfill"
    static let borrow = "http://opds-spec.org/acquisition/borrow"
    static let revoke = "http://librarysimplified.org/terms/rel/revoke"
    static let acquisition = "http://opds-spec.org/acquisition"

    static func book(openAccess: Bool = false, available: Int = 1) -> BookEntry {
        BookEntry(
            id: id,
            metadata: BookMetadata(
                title: "T",
                contributors: [],
                languages: ["en"],
                subjects: [],
                genres: [],
                identifiers: [],
                fixedLayout: false,
                wordCount: 1,
                format: .epub
            ),
            hasCover: false,
            openAccess: openAccess,
            copies: 1,
            copiesAvailable: available,
            holds: 0,
            ratingCount: 0,
            updatedAt: Date(),
            withdrawn: false
        )
    }

    func links(_ state: BookState?, book: BookEntry = book()) -> [String] {
        let view = state.map { PatronBookView(bookId: Self.id, state: $0) }
        return Entry(book: book, view: view, publicURL: Self.base).acquisitionLinks.map { "\($0.rel) \($0.href)" }
    }

    @Test func everyStateOffersWhatTheMachineAllows() {
        #expect(links(nil) == ["\(Self.borrow) \(Self.me)/borrow"])
        #expect(links(.saved) == ["\(Self.borrow) \(Self.me)/borrow"])
        #expect(links(nil, book: Self.book(available: 0)) == ["\(Self.borrow) \(Self.me)/hold"])
        #expect(links(.waitingForLoan) == ["\(Self.borrow) \(Self.me)/hold", "\(Self.revoke) \(Self.me)/hold"])
        #expect(links(.loanOffered) == ["\(Self.borrow) \(Self.me)/accept", "\(Self.revoke) \(Self.me)/decline"])
        for state in [BookState.notDownloaded, .downloadFailed, .downloadCompleted, .opened] {
            #expect(links(state) == ["\(Self.acquisition) \(Self.fulfill)", "\(Self.revoke) \(Self.me)/return"], "\(state)")
            #expect(BookMachine.allowedEvents(from: state).contains(.returnLoan))
        }
        for state in [BookState.downloadQueued, .downloading] {
            #expect(links(state) == ["\(Self.acquisition) \(Self.fulfill)"], "\(state)")
        }
        for state in [BookState.loanExpired, .loanOfferExpired] {
            #expect(links(state) == ["\(Self.revoke) \(Self.me)/dismiss"], "\(state)")
            #expect(BookMachine.allowedEvents(from: state) == [.dismiss])
        }
        #expect(links(.opened, book: Self.book(openAccess: true)) == ["http://opds-spec.org/acquisition/open-access \(Self.fulfill)"])
    }

    @Test func aHoldOffersSuspensionAndASuspendedHoldItsEndWithTheDate() {
        func link(_ view: PatronBookView?) -> Feed.Link? { Entry(book: Self.book(available: 0), view: view, publicURL: Self.base).holdSuspensionLink }
        #expect(link(nil) == nil)
        #expect(link(PatronBookView(bookId: Self.id, state: .notDownloaded)) == nil)
        let active = link(PatronBookView(bookId: Self.id, state: .waitingForLoan))
        #expect(active?.rel == "urn:x-bookmobile:rel/suspend-hold" && active?.href == "\(Self.me)/suspend")
        let until = Date().addingTimeInterval(86_400)
        let suspended = link(PatronBookView(bookId: Self.id, state: .waitingForLoan, suspendedUntil: until))
        #expect(suspended?.rel == "urn:x-bookmobile:rel/resume-hold" && suspended?.href == "\(Self.me)/resume")
        #expect(suspended?.title?.contains(WireFormat.formatDate(until)) == true)
        // A date that has passed (the expiry job has not cleared it yet) is an active hold.
        #expect(
            link(PatronBookView(bookId: Self.id, state: .waitingForLoan, suspendedUntil: Date().addingTimeInterval(-1)))?.rel
                == "urn:x-bookmobile:rel/suspend-hold"
        )
    }

    /// The rule that lets a page showing a saved book be the shared page, held to both renderers: for every state, with
    /// every date filled in and with or without a hold position, an entry the rule calls unchanged renders as an
    /// anonymous visitor's; and for a lent book, every entry it calls changed does change.
    @Test func onlyTheStatesThatShowDifferentlyChangeAnEntrysBytes() {
        for book in [Self.book(), Self.book(available: 0), Self.book(openAccess: true)] {
            func rendered(_ view: PatronBookView?) -> [UInt8] {
                let entry = Entry(book: book, view: view, publicURL: Self.base)
                return Array(AtomRenderer.entryDocument(entry).readableBytesView) + JSONWriter.bytes(of: OPDS2Renderer.publication(entry))
            }
            let anonymous = rendered(nil)
            for state in BookState.allCases {
                for position in [nil, 2] {
                    let now = Date()
                    let view = PatronBookView(
                        bookId: Self.id,
                        state: state,
                        holdPosition: position,
                        dueAt: now.addingTimeInterval(86_400),
                        offerExpiresAt: now.addingTimeInterval(3_600),
                        since: now.addingTimeInterval(-60),
                        suspendedUntil: now.addingTimeInterval(7_200)
                    )
                    let changed = rendered(view) != anonymous
                    if !Entry.showsDifferently(view) { #expect(!changed, "\(state), position \(String(describing: position))") }
                    if !book.openAccess { #expect(changed == Entry.showsDifferently(view), "\(state), position \(String(describing: position))") }
                }
            }
        }
    }

    /// What the gateway is told a patron sees differently (`PatronOverlay.touched`, their shelf summary): loans, holds
    /// and ignored books, not saved ones, so a page showing a saved book stays the shared page.
    @Test func aSavedBookIsNotAmongTheBooksAPatronSeesDifferently() {
        let (saved, loan, hold, ignored) = (UUID(), UUID(), UUID(), UUID())
        let shelf = PatronShelf(
            books: [
                PatronBookView(bookId: saved, state: .saved), PatronBookView(bookId: loan, state: .notDownloaded),
                PatronBookView(bookId: hold, state: .waitingForLoan, holdPosition: 1),
            ],
            ignored: [ignored],
            waitingForAction: 0
        )
        let overlay = PatronOverlay(shelf: shelf)
        #expect(overlay.touched == [loan, hold, ignored])
        #expect(overlay.sharesPage(showing: [saved, UUID()]))
        #expect(!overlay.sharesPage(showing: [saved, loan]))
    }
}
