import Foundation
import Shared

/// One book in a feed, with what the requesting patron may do with it.
struct Entry: Sendable, Equatable {
    var book: BookEntry
    var view: PatronBookView?
    var publicURL: String

    /// Whether `view` changes what the book's entry shows. A saved book's entry is the one every visitor gets (saving
    /// shows on the patron's shelf, not in feeds), so a page showing it can still be the shared page
    /// (`PatronOverlay.touched`); `EntryLinksTests` renders every state to hold this rule to the renderers.
    static func showsDifferently(_ view: PatronBookView) -> Bool { ![.none, .saved].contains(view.state) || view.holdPosition != nil }

    /// The URL of a circulation action on this book.
    func action(_ action: PublicRoute.CirculationAction) -> String { PublicRoute.circulation(book.id, action).url(publicURL) }

    /// Where a reading app syncs bookmarks and the reading position of this book (W3C Web Annotations), for a
    /// patron who has it on loan, or for an open-access book.
    var annotationService: Feed.Link? {
        guard view?.state.isOnLoan == true || book.openAccess else { return nil }
        return Feed.Link(
            rel: "http://www.w3.org/ns/oa#annotationService",
            href: PublicRoute.annotations(book.id).url(publicURL),
            type: "application/ld+json; profile=\"http://www.w3.org/ns/anno.jsonld\""
        )
    }
    /// Where a reading app syncs the reading position of this book as an OPDS Progression document (the same
    /// position as the annotations' and KOReader's), for a patron who has it on loan, or for an open-access book.
    var progressionLink: Feed.Link? {
        guard view?.state.isOnLoan == true || book.openAccess else { return nil }
        return Feed.Link(rel: Self.progressionRel, href: PublicRoute.progression(book.id).url(publicURL), type: Self.progressionType)
    }
    static let progressionRel = "http://opds-spec.org/progression"
    static let progressionType = "application/opds-progression+json"
    /// The book's Readium Web Publication Manifest, for those who may read it: everyone for an open-access book, the
    /// borrower for a lent one (its resources answer only them). Readers that stream a book (Thorium, web readers)
    /// open it from here instead of downloading the EPUB.
    var manifestLink: Feed.Link? {
        if book.openAccess {
            return Feed.Link(
                rel: "http://opds-spec.org/acquisition/open-access",
                href: PublicRoute.manifest(book.id).url(publicURL),
                type: book.format.manifestType
            )
        }
        guard view?.state.isOnLoan == true else { return nil }
        return Feed.Link(
            rel: "http://opds-spec.org/acquisition",
            href: PublicRoute.manifest(book.id).url(publicURL),
            type: book.format.manifestType
        )
    }
    /// For a patron's hold: suspending it (POST `{"until": date}`), or, while it is suspended, resuming it; the
    /// title says until when it is suspended.
    var holdSuspensionLink: Feed.Link? {
        guard let view, view.state == .waitingForLoan else { return nil }
        if let until = view.suspendedUntil, until > Date() {
            return Feed.Link(
                rel: "urn:x-bookmobile:rel/resume-hold",
                href: action(.resume),
                type: MediaType.json,
                title: "Suspended until \(WireFormat.formatDate(until)); resume"
            )
        }
        return Feed.Link(rel: "urn:x-bookmobile:rel/suspend-hold", href: action(.suspend), type: MediaType.json, title: "Suspend this hold")
    }
    /// The grouped feed of books related to this one (`rel="related"`).
    var relatedLink: Feed.Link {
        Feed.Link(rel: "related", href: PublicRoute.related(book.id).url(publicURL), type: MediaType.acquisition, title: "Related books")
    }
    var entryURL: String { PublicRoute.entry(book.id).url(publicURL) }
    var urn: String { "urn:uuid:\(book.id.lowercased)" }

    struct Availability {
        var status: String
        var since: Date?
        var until: Date?
    }

    var availability: Availability {
        switch view?.state {
        case .waitingForLoan?: Availability(status: "reserved", since: view?.since)
        case .loanOffered?: Availability(status: "ready", until: view?.offerExpiresAt)
        case let state? where state.isOnLoan: Availability(status: "available", until: view?.dueAt)
        default: Availability(status: book.openAccess || book.copiesAvailable > 0 ? "available" : "unavailable")
        }
    }

    /// What a borrow leads to, for an app to know before it borrows (OPDS `indirectAcquisition`): the file, or for an
    /// audiobook its manifest, which players open.
    var acquiredType: String { book.format == .audiobook ? book.format.manifestType : book.format.fileType }

    /// Acquisition and action links allowed by the patron's state.
    var acquisitionLinks: [Feed.Link] {
        let file = book.format.fileType
        let entryType = MediaType.entry
        if book.openAccess {
            return [Feed.Link(rel: "http://opds-spec.org/acquisition/open-access", href: PublicRoute.fulfill(book.id).url(publicURL), type: file)]
        }
        var links: [Feed.Link] = []
        let state = view?.state ?? .none
        switch state {
        case .none, .saved:
            let available = book.copiesAvailable > 0
            links.append(Feed.Link(rel: "http://opds-spec.org/acquisition/borrow", href: action(available ? .borrow : .hold), type: entryType))
        case .loanOffered:
            links.append(Feed.Link(rel: "http://opds-spec.org/acquisition/borrow", href: action(.accept), type: entryType))
            links.append(Feed.Link(rel: "http://librarysimplified.org/terms/rel/revoke", href: action(.decline), type: entryType))
        case .waitingForLoan:
            // The acquisition a reserved book offers (as Palace's feeds do): OPDS 2.0 wants one on every publication.
            links.append(Feed.Link(rel: "http://opds-spec.org/acquisition/borrow", href: action(.hold), type: entryType))
            links.append(Feed.Link(rel: "http://librarysimplified.org/terms/rel/revoke", href: action(.hold), type: entryType))
        case let state where state.isOnLoan:
            links.append(Feed.Link(rel: "http://opds-spec.org/acquisition", href: PublicRoute.fulfill(book.id).url(publicURL), type: file))
            // Not while a download is queued or under way: the machine allows no return from there.
            if BookMachine.allowedEvents(from: state).contains(.returnLoan) {
                links.append(Feed.Link(rel: "http://librarysimplified.org/terms/rel/revoke", href: action(.returnLoan), type: entryType))
            }
        default:
            // An expired loan or offer: the only thing to do is to dismiss the notice (then the book can be borrowed again).
            links.append(Feed.Link(rel: "http://librarysimplified.org/terms/rel/revoke", href: action(.dismiss), type: entryType))
        }
        return links
    }
}
