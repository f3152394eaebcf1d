import Foundation
import HummingbirdTesting
import TestSupport
import Testing

@testable import CatalogService

/// A shared lane page keeps a few rows past its lookahead (`FeedPostgresRepository.spareRows`), so that a patron who
/// hides some of its books gets their page from them (`Page.hiding`) instead of the lane read again: that page must be
/// the one the lane read with those books hidden gives, its books, next link and lookahead, on every page of a fixed, a
/// genre and the general statement's lane; and when too many are hidden to fill the page, it is read again. The feed
/// cache counts the spare rows' memory with the page.
extension CatalogServiceTests {
    @Test func aPageMadeFromTheSharedRowsIsThePageReadWithTheBooksHidden() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { client in
            try await ingestLaneBooks(client, url: url)
            try await TestDatabase.withClient(url) { postgres, logger in
                let feeds = FeedPostgresRepository(books: BookPostgresRepository(client: postgres))
                let lanes = [(Lane.named("new"), SortKey.added), (Lane.genre("poetry"), .title), (Lane.author("Poet 1"), .title)]
                for (lane, sort) in lanes {
                    let lane = try #require(lane)
                    func page(after: PageCursor?, hidden: [UUID], spare: Int = 0) async throws -> FeedPostgresRepository.Page {
                        try await feeds.lane(
                            lane,
                            sort: sort,
                            order: .asc,
                            availableOnly: false,
                            size: 3,
                            after: after,
                            hidden: hidden,
                            spare: spare,
                            logger: logger
                        )
                    }
                    // Every page as every visitor gets it, followed by its next links.
                    var after: PageCursor?
                    var pages = 0
                    repeat {
                        let shared = try await page(after: after, hidden: [], spare: FeedPostgresRepository.spareRows)
                        let read = try #require(shared.readAhead).rows.map(\.0.id)
                        // The feed cache counts the rows kept past the page.
                        #expect((shared.spareBytes > 0) == (read.count > shared.books.count), "\(lane.slug): spare rows counted")
                        let hiddenSets: [(String, [UUID], Bool)] = [
                            ("nothing", [], true),
                            ("a book elsewhere", [UUID()], true),
                            ("the first book", Array(read.prefix(1)), true),
                            ("the lookahead", read.count > 3 ? [read[3]] : [], true),
                            ("two on the page and one past it", read.count > 4 ? [read[0], read[2], read[4]] : read, true),
                            ("the spare rows' worth", Array(read.prefix(FeedPostgresRepository.spareRows)), true),
                            ("every book read", read, false),
                        ]
                        for (what, hidden, madeFromRows) in hiddenSets {
                            let expected = try await page(after: after, hidden: hidden)
                            let made = shared.hiding(hidden)
                            let context = "\(lane.slug) page \(pages + 1), hiding \(what)"
                            // Rows running to the lane's end make any page.
                            if madeFromRows || shared.readAhead?.reachesEnd == true {
                                #expect(made != nil, "\(context): made from the shared rows")
                            }
                            if !madeFromRows && shared.readAhead?.reachesEnd == false { #expect(made == nil, "\(context): read again") }
                            guard let made else { continue }
                            #expect(made.books.map(\.id) == expected.books.map(\.id), "\(context)")
                            #expect(made.next == expected.next, "\(context)")
                            #expect(made.lookahead == expected.lookahead, "\(context)")
                        }
                        after = shared.next
                        pages += 1
                    } while after != nil
                    #expect(pages > 1 || lane.slug.hasPrefix("author"), "\(lane.slug): several pages")
                }
            }
        }
    }
}
