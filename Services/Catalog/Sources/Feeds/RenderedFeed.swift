import ServiceSupport

/// What an anonymous feed page was made from, kept with it in the feed cache (`StoredResponse.source`): the feed, so
/// that the page computed again as the same feed keeps its bytes without rendering them (`FeedResponder.render`), and
/// for a page read from rows, the rows, from which a patron's page with the same books is made (`PatronOverlay`).
struct RenderedFeed: StoredSource {
    let feed: Feed
    let rows: FeedPostgresRepository.Page?
    /// Where each of the feed's entries lies in the page's bytes, when a patron's entries can be spliced into them
    /// (`FeedSplice`: an uncompressed page without groups); nil otherwise.
    var entryRanges: [Range<Int>]? = nil

    /// The entries share their books' storage with the rows: counted once, with the rows read past them (`spareBytes`)
    /// and a little for each link.
    var bytes: Int {
        var books = 0
        feed.forEachEntry { books += $0.book.approximateBytes }
        return books + (rows?.spareBytes ?? 0) + (feed.links.count + feed.navigation.count) * 256 + (entryRanges?.count ?? 0) * 16
    }
}
