import Foundation
import Shared

/// Bookmarks and reading positions as W3C Web Annotations, in the shape Palace/SimplyE apps exchange:
/// `motivation` `oa:bookmarking` (a bookmark) or `…/annotation/idling` (the reading position), the book as
/// `target.source` and the place as a `FragmentSelector` whose value is a JSON `LocatorHrefProgression`.
enum Annotation {
    static let bookmarking = "http://www.w3.org/ns/oa#bookmarking"
    static let idling = "http://librarysimplified.org/terms/annotation/idling"
    static let timeKey = "http://librarysimplified.org/terms/time"
    static let deviceKey = "http://librarysimplified.org/terms/device"
    static let context = "http://www.w3.org/ns/anno.jsonld"
    static let contentType = "application/ld+json; profile=\"http://www.w3.org/ns/anno.jsonld\""

    /// What an incoming annotation asks for.
    enum Request {
        case bookmark(bookID: UUID, BookmarkRequest)
        case position(bookID: UUID, ReadingPosition)
    }

    /// Reads a POSTed annotation; a 400 problem names what is wrong.
    static func parse(_ json: [String: Any], now: Date = Date()) throws -> Request {
        guard let motivation = json["motivation"] as? String else { throw Problem.badRequest("motivation is required") }
        guard let target = json["target"] as? [String: Any], let source = target["source"] as? String, let bookID = bookID(in: source) else {
            throw Problem.badRequest("target.source must name a book (urn:uuid:… or its feed URL)")
        }
        guard let selector = target["selector"] as? [String: Any], let value = selector["value"] as? String,
            let place = try? JSONSerialization.jsonObject(with: Data(value.utf8)) as? [String: Any]
        else { throw Problem.badRequest("target.selector.value must be a JSON locator") }
        let locator = try self.locator(from: place)
        let body = json["body"] as? [String: Any] ?? [:]
        let device = (body[deviceKey] as? String).map { String($0.prefix(200)) }
        let time = (body[timeKey] as? String).flatMap(WireFormat.parseDate) ?? now
        switch motivation {
        case bookmarking, "bookmarking", "oa:bookmarking":
            let input = BookmarkRequest.LocatorInput(
                href: locator.href,
                type: locator.type,
                title: nil,
                locations: locator.locations,
                progression: nil,
                text: nil
            )
            return .bookmark(bookID: bookID, BookmarkRequest(locator: input, chapter: place["title"] as? String, snippet: nil, device: device))
        case idling:
            return .position(bookID: bookID, ReadingPosition(locator: locator, timestamp: time, device: device ?? "unknown"))
        default:
            throw Problem.badRequest("motivation must be \(bookmarking) or \(idling)")
        }
    }

    /// A `LocatorHrefProgression` (`href`, `progressWithinChapter`, `progressWithinBook`) or a Readium locator.
    static func locator(from place: [String: Any]) throws -> Locator {
        guard let href = place["href"] as? String else {
            throw Problem.badRequest("the selector's locator needs an href (the legacy idref/contentCFI form is not supported)")
        }
        if let locations = place["locations"] as? [String: Any] {
            return Locator(
                href: href,
                type: place["type"] as? String,
                locations: Locator.Locations(
                    progression: number(locations["progression"]),
                    totalProgression: number(locations["totalProgression"]),
                    position: locations["position"] as? Int,
                    cfi: locations["cfi"] as? String
                )
            )
        }
        return Locator(
            href: href,
            type: nil,
            locations: Locator.Locations(progression: number(place["progressWithinChapter"]), totalProgression: number(place["progressWithinBook"]))
        )
    }

    /// A bookmark as an annotation.
    static func json(_ bookmark: Bookmark, publicURL: String) -> [String: Any] {
        document(
            id: PublicRoute.annotations(bookmark.id).url(publicURL),
            motivation: bookmarking,
            bookID: bookmark.bookId,
            locator: bookmark.locator,
            time: bookmark.createdAt,
            device: bookmark.device,
            title: bookmark.chapter
        )
    }

    /// A reading position as an annotation.
    static func json(_ position: ReadingPosition, bookID: UUID, publicURL: String) -> [String: Any] {
        document(
            id: PublicRoute.position(bookID).url(publicURL),
            motivation: idling,
            bookID: bookID,
            locator: position.locator,
            time: position.timestamp,
            device: position.device,
            title: nil
        )
    }

    /// An `AnnotationCollection` of `total` annotations, with its first page.
    static func collection(first: [String: Any], id: String, total: Int, lastPage: Int) -> [String: Any] {
        [
            "@context": [context, "http://www.w3.org/ns/ldp.jsonld"], "id": id, "type": ["BasicContainer", "AnnotationCollection"],
            "total": total, "first": first, "last": id + pageQuery(lastPage),
        ]
    }

    /// Page `number` of the collection `collection` (W3C Web Annotation Protocol §4.2), its first item being the
    /// collection's `startIndex`th.
    static func page(_ items: [[String: Any]], collection: String, number: Int, startIndex: Int, hasNext: Bool) -> [String: Any] {
        var page: [String: Any] = [
            "id": collection + pageQuery(number), "type": "AnnotationPage", "partOf": collection, "startIndex": startIndex, "items": items,
        ]
        if hasNext { page["next"] = collection + pageQuery(number + 1) }
        if number > 1 { page["prev"] = collection + pageQuery(number - 1) }
        return page
    }

    /// `?page=N`: the W3C protocol names every page, the first included.
    private static func pageQuery(_ number: Int) -> String { QueryString().adding("page", String(number)).suffix }

    private static func document(
        id: String,
        motivation: String,
        bookID: UUID,
        locator: Locator,
        time: Date,
        device: String?,
        title: String?
    ) -> [String: Any] {
        var place: [String: Any] = ["@type": "LocatorHrefProgression", "href": locator.href]
        if let progression = locator.locations.progression { place["progressWithinChapter"] = progression }
        if let total = locator.locations.totalProgression { place["progressWithinBook"] = total }
        if let title { place["title"] = title }
        let value = String(decoding: JSONWriter.bytes(place), as: UTF8.self)
        var body: [String: Any] = [timeKey: WireFormat.formatDate(time)]
        if let device { body[deviceKey] = device }
        return [
            "@context": context, "id": id, "type": "Annotation", "motivation": motivation, "body": body,
            "target": ["source": "urn:uuid:\(bookID.lowercased)", "selector": ["type": "oa:FragmentSelector", "value": value]],
        ]
    }

    /// The book id at the end of `source` (`urn:uuid:…`, `…/opds/books/{id}`, or a bare id).
    static func bookID(in source: String) -> UUID? {
        let tail = source.split(whereSeparator: { $0 == "/" || $0 == ":" }).last.map(String.init) ?? source
        return UUID(uuidString: tail)
    }

    private static func number(_ value: Any?) -> Double? {
        (value as? Double) ?? (value as? Int).map(Double.init) ?? (value as? NSNumber)?.doubleValue
    }
}
