import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import TestSupport
import Testing

@testable import CatalogService

/// Search as a million-book catalog runs it, on a small one: relevance by the fields' weights, keyset
/// pages that neither repeat nor skip a book while books are added between them, and a word found in more books than
/// are counted (`FeedPostgresRepository.countBound`).
extension CatalogServiceTests {
    /// The catalog app on a database of its own, whose URL the test can run SQL against.
    func appAndDatabase() async throws -> (some ApplicationProtocol, String) {
        let url = try await TestDatabase.create(prefix: "catalog")
        let app = try await buildCatalogApplication(config: TestConfig.base(["CATALOG_DATABASE_URL": url, "BLOB_DIR": blobs.path]))
        return (app, url)
    }

    /// Ingests a book with this title, author and description; its entry id.
    func ingestBook(_ client: some TestClientProtocol, title: String, author: String = "A. Writer", description: String = "") async throws -> String {
        let file = try MinimalEPUB.write(
            title: title,
            author: author,
            metadata: description.isEmpty ? "" : "<dc:description>\(description)</dc:description>"
        )
        let (status, body) = try await ingest(client, file)
        #expect(status == .created, "\(title)")
        return "urn:uuid:" + (try #require((body["book"] as? [String: Any])?["id"] as? String))
    }

    /// The ids of every page of `uri`, following its next links; `between` runs after each page.
    func pagedIDs(_ client: some TestClientProtocol, _ uri: String, between: (Int) async throws -> Void = { _ in }) async throws -> [[String]] {
        var pages: [[String]] = []
        var next: String? = uri
        while let current = next, pages.count < 100 {
            let feed = try await opds2(client, current)
            pages.append(ids(feed))
            next = ((feed["links"] as? [[String: Any]]) ?? []).first { $0["rel"] as? String == "next" }.flatMap { $0["href"] as? String }
                .map { String($0[$0.range(of: "/opds/")!.lowerBound...]) }
            try await between(pages.count)
        }
        return pages
    }

    @Test func aWordInTheTitleRanksAboveTheAuthorAboveTheDescription() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { client in
            let described = try await ingestBook(client, title: "Marsh Notes", description: "A grey heron stood still in the reeds.")
            let byAuthor = try await ingestBook(client, title: "Quiet Water", author: "Jane Heron")
            let titled = try await ingestBook(client, title: "Heron Bay")
            _ = try await ingestBook(client, title: "Something Else", description: "Nothing about birds.")
            let indexes = try await TestDatabase.query(
                "SELECT indexname FROM pg_indexes WHERE tablename = 'books' AND indexname LIKE 'books_search%'",
                on: url
            )
            #expect(indexes == ["books_search"], "the GIN index (RUM crashed PostgreSQL under concurrent searches)")

            for q in ["heron", "Heron", "hero", "HERON%20"] {
                let found = try await opds2(client, "/opds/search?q=\(q)")
                #expect(ids(found) == [titled, byAuthor, described], "\(q)")
                #expect((found["metadata"] as? [String: Any])?["numberOfItems"] as? Int == 3, "\(q)")
            }
            // A page past the matches is empty and still says how many there are (the count runs with the page).
            let past = try await opds2(client, "/opds/search?q=heron&page=5")
            #expect(ids(past).isEmpty && (past["metadata"] as? [String: Any])?["numberOfItems"] as? Int == 3)
            // Every word must match, whole but for the last: "grey heron" finds the description, "gre heron" nothing by
            // full text (a prefix of three letters is a word of its own), so its words are corrected: no catalogue word
            // is near "gre" ("grey" is only in a description), and the books with any of its words follow, best first.
            // (Fewer than five matches are followed by the corrected query's matches: SearchCorrectionTests.)
            #expect(ids(try await opds2(client, "/opds/search?q=grey%20heron")).first == described)
            #expect(ids(try await opds2(client, "/opds/search?q=gre%20heron")) == [titled, byAuthor, described])
        }
    }

    @Test(arguments: ["", "&sort=title", "&sort=added&order=desc"])
    func searchPagesNeitherRepeatNorSkipABookWhileBooksAreAdded(sort: String) async throws {
        let (app, _) = try await appAndDatabase()
        try await app.testRouter { client in
            var before: [String] = []
            for (index, word) in ["Amber", "Birch", "Cedar", "Dune", "Elm"].enumerated() {
                before.append(try await ingestBook(client, title: "\(word) Lantern"))
                before.append(try await ingestBook(client, title: "\(word) Tales", description: "A lantern in chapter \(index)."))
            }
            var added: [String] = []
            // After each page a book joins that ranks first, and one that ranks last.
            let pages = try await pagedIDs(client, "/opds/search?q=lantern&size=3\(sort)") { page in
                guard page <= 3 else { return }
                added.append(try await ingestBook(client, title: "Lantern \(page) Bright"))
                added.append(try await ingestBook(client, title: "Zither \(page)", description: "The lantern again."))
            }
            let seen = pages.flatMap { $0 }
            #expect(seen.count == Set(seen).count, "a book repeated: \(pages)")
            #expect(Set(before).isSubset(of: Set(seen)), "a book was skipped: \(pages)")
            #expect(pages.dropLast().allSatisfy { $0.count == 3 })
            let all = ids(try await opds2(client, "/opds/search?q=lantern&size=100\(sort)"))
            #expect(all.count == before.count + added.count)
        }
    }

    @Test func aWordInMoreBooksThanAreCountedListsTheMostBorrowedRankedAndSaysNoTotal() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { client in
            _ = try await ingestBook(client, title: "Common Ground", description: "Ground truth, and a meadow.")
            // Copies of it, half with the word in the title: more than the count's bound for "ground", and many (but fewer
            // than the bound, so all ranked by weight) for "meadow".
            func copies(_ count: Int, word: String, everyTitle: Bool = false) async throws {
                try await TestDatabase.execute(
                    """
                    INSERT INTO books (id, title, sort_title, sort_author, authors, languages, description, epub_sha256, epub_size, copies,
                        copies_available, checkouts, popularity)
                    SELECT gen_random_uuid(), CASE WHEN g % 2 = 0 OR \(everyTitle) THEN '\(word) ' || g ELSE 'Field ' || g END, '\(word) ' || lpad(g::text, 6, '0'),
                        b.sort_author, b.authors, b.languages, 'The \(word).', md5(random()::text || g), b.epub_size, 1, 1, g % 100, g % 100
                    FROM books b, generate_series(1, \(count)) g WHERE b.title = 'Common Ground'
                    """,
                    on: url
                )
            }
            try await copies(FeedPostgresRepository.countBound + 50, word: "Ground")
            try await copies(1_500, word: "Meadow")
            try await TestDatabase.execute("ANALYZE books", on: url)
            let meadows = try await opds2(client, "/opds/search?q=meadow&size=50")
            #expect((meadows["metadata"] as? [String: Any])?["numberOfItems"] as? Int == 1_501)
            let meadowTitles = (meadows["publications"] as? [[String: Any]] ?? []).compactMap {
                ($0["metadata"] as? [String: Any])?["title"] as? String
            }
            #expect(
                meadowTitles.count == 50 && meadowTitles.allSatisfy { $0.hasPrefix("Meadow ") },
                "title matches rank first: \(meadowTitles.prefix(5))"
            )
            // Books that rank first join between the pages: none of the pages repeats a book.
            let meadowPages = try await pagedIDs(client, "/opds/search?q=meadow&size=100") { page in
                if page <= 3 { _ = try await ingestBook(client, title: "Meadow Bright \(page)") }
            }.flatMap { $0 }
            #expect(meadowPages.count == Set(meadowPages).count && meadowPages.count >= 1_501)

            // Deeper than `deepestResult`, a page is empty: with its total when the matches were counted, without it past the bound.
            let deepMeadow = try await opds2(client, "/opds/search?q=meadow&size=50&page=\(FeedPostgresRepository.deepestResult / 50 + 1)")
            #expect(ids(deepMeadow).isEmpty && (deepMeadow["metadata"] as? [String: Any])?["numberOfItems"] as? Int == 1_504)
            let deepGround = try await opds2(client, "/opds/search?q=ground&size=50&page=\(FeedPostgresRepository.deepestResult / 50 + 1)")
            #expect(ids(deepGround).isEmpty && (deepGround["metadata"] as? [String: Any])?["numberOfItems"] == nil)

            let first = try await opds2(client, "/opds/search?q=ground&size=50")
            #expect((first["metadata"] as? [String: Any])?["numberOfItems"] == nil, "no total past the bound")
            let titles = (first["publications"] as? [[String: Any]] ?? []).compactMap { ($0["metadata"] as? [String: Any])?["title"] as? String }
            #expect(titles.count == 50 && titles.allSatisfy { $0.hasPrefix("Ground ") }, "title matches rank first: \(titles.prefix(5))")

            let pages = try await pagedIDs(client, "/opds/search?q=ground&size=100")
            let seen = pages.flatMap { $0 }
            #expect(seen.count == FeedPostgresRepository.popularCandidates && Set(seen).count == seen.count)
            // The candidates are the most borrowed books with the word in the title (the word's kept rows), not the most
            // borrowed matches of any field, half of which have it in the description only.
            let seenIDs = seen.map { $0.replacingOccurrences(of: "urn:uuid:", with: "") }.joined(separator: ",")
            let titled = try await TestDatabase.query(
                "SELECT count(*)::text FROM books WHERE id = ANY('{\(seenIDs)}'::uuid[]) AND title LIKE 'Ground %'",
                on: url
            )
            #expect(titled == ["\(FeedPostgresRepository.popularCandidates)"], "the thousand most borrowed titles with the word")
            // A book the patron hid is left out of every page (`search_postings_page`); the pages stay full and follow on.
            let listed = seen.map { $0.replacingOccurrences(of: "urn:uuid:", with: "") }
            let hiddenBook = try #require(UUID(uuidString: listed[0]))
            let (hiddenFirst, hiddenSecond) = try await TestDatabase.withClient(url) { client, logger in
                let feeds = FeedPostgresRepository(books: BookPostgresRepository(client: client))
                let first = try await feeds.search(.init(q: "ground", size: 50), hidden: [hiddenBook], logger: logger)
                var next = FeedPostgresRepository.SearchRequest(q: "ground", size: 50)
                next.after = first.next
                return (first, try await feeds.search(next, hidden: [hiddenBook], logger: logger))
            }
            // Hiding one candidate lets the next most borrowed book in, which may rank anywhere: the rest keep their order.
            let shown = (hiddenFirst.books + hiddenSecond.books).map { $0.id.uuidString.lowercased() }
            let before = Array(listed[1..<101])
            #expect(hiddenFirst.total == nil && hiddenFirst.books.count == 50 && hiddenSecond.books.count == 50)
            #expect(Set(shown).count == 100 && !shown.contains(listed[0]))
            #expect(Set(shown).subtracting(before).count <= 1)
            #expect(shown.filter { before.contains($0) } == before.filter { shown.contains($0) })
            // A first page without hidden books has a statement of its own (catalog migration 32): the same books in the
            // same order, ties included, as the statement for hidden books gives with a hidden id no book has.
            for skip in [0, 30, 990] {
                func page(hidden: String) async throws -> [String] {
                    try await TestDatabase.query(
                        "SELECT book_id::text || ' ' || key::text FROM search_postings_page('ground', 1000, NULL, NULL, 60, \(skip), '\(hidden)')",
                        on: url
                    )
                }
                let firstPage = try await page(hidden: "{}")
                #expect(firstPage.count == min(60, 1_000 - skip))
                #expect(firstPage == (try await page(hidden: "{\(UUID().uuidString.lowercased())}")), "skip \(skip)")
            }
            // Two words: the candidates are the longest word's kept entries, each book checked against both and ranked.
            let twoCommon = try await opds2(client, "/opds/search?q=the+ground&size=50")
            let twoCommonTitles = (twoCommon["publications"] as? [[String: Any]] ?? []).compactMap {
                ($0["metadata"] as? [String: Any])?["title"] as? String
            }
            #expect((twoCommon["metadata"] as? [String: Any])?["numberOfItems"] == nil)
            #expect(twoCommonTitles.count == 50 && twoCommonTitles.allSatisfy { $0.hasPrefix("Ground ") }, "\(twoCommonTitles.prefix(5))")

            // A word in the descriptions only ("The Ground."): none of its books is among the kept title words, so the
            // candidates are the most borrowed matches of any field, read in popularity order.
            let described = try await pagedIDs(client, "/opds/search?q=the&size=100").flatMap { $0 }
            #expect(described.count == FeedPostgresRepository.popularCandidates && Set(described).count == described.count)
            let describedIDs = described.map { $0.replacingOccurrences(of: "urn:uuid:", with: "") }.joined(separator: ",")
            let moreBorrowedLeftOut = try await TestDatabase.query(
                """
                WITH listed AS (SELECT id, popularity FROM books WHERE id = ANY('{\(describedIDs)}'::uuid[]))
                SELECT count(*)::text FROM books WHERE search @@ 'the'::tsquery AND id NOT IN (SELECT id FROM listed)
                    AND popularity > (SELECT min(popularity) FROM listed)
                """,
                on: url
            )
            #expect(moreBorrowedLeftOut == ["0"], "the thousand most borrowed of ~11,500 matches")

            // A word whose kept title words alone pass the bound is not counted in the books: no total either; with a
            // filter beside it, its matches are counted.
            try await copies(FeedPostgresRepository.countBound + 1, word: "Stone", everyTitle: true)
            let stones = try await opds2(client, "/opds/search?q=stone&size=50")
            #expect((stones["metadata"] as? [String: Any])?["numberOfItems"] == nil && ids(stones).count == 50)
            let poetry = try await opds2(client, "/opds/search?q=stone&genre=poetry")
            #expect((poetry["metadata"] as? [String: Any])?["numberOfItems"] as? Int == 0 && ids(poetry).isEmpty)
            let twoWords = try await opds2(client, "/opds/search?q=stone+ground")
            // No book has both words: they are counted (none), and the typo-tolerant matches follow, with their total.
            #expect((twoWords["metadata"] as? [String: Any])?["numberOfItems"] as? Int != nil, "two words are counted in the books")
            // Sorted, the pages go on past the candidates: by keyset, as far as a patron pages.
            let sorted = try await opds2(client, "/opds/search?q=ground&size=100&sort=title")
            #expect(ids(sorted).count == 100 && (sorted["links"] as? [[String: Any]] ?? []).contains { $0["rel"] as? String == "next" })
        }
    }

    /// What `search_postings` must hold: every title, subtitle, author, series and subject word of each book on the
    /// shelves, with the book's popularity and the word's rank in it; a count of the rows that differ.
    static let postingsDifferences = """
        WITH expected AS (SELECT w.lexeme AS word, b.popularity, b.id AS book_id FROM books b, unnest(b.search) w
            WHERE w.weights && '{A,B,C}' AND b.withdrawn_at IS NULL)
        SELECT ((SELECT count(*) FROM (SELECT * FROM expected EXCEPT SELECT word, popularity, book_id FROM search_postings) missing)
            + (SELECT count(*) FROM (SELECT word, popularity, book_id FROM search_postings EXCEPT SELECT * FROM expected) extra)
            + (SELECT count(*) FROM search_postings p JOIN books b ON b.id = p.book_id
                WHERE p.rank <> ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', b.search, to_tsquery('simple', p.word))))::text
        """

    /// Every change of a book that its kept search words follow, named, as SQL: the last deletes the book.
    static func everyChange(of id: String) -> [(String, String)] {
        [
            ("title", "UPDATE books SET title = 'Heron Cove' WHERE id = '\(id)'"),
            ("subjects", "UPDATE books SET subjects = ARRAY['Birds'] WHERE id = '\(id)'"),
            ("popularity", "UPDATE books SET popularity = 7 WHERE id = '\(id)'"),
            ("description only", "UPDATE books SET description = 'Other words.' WHERE id = '\(id)'"),
            ("withdrawn", "UPDATE books SET withdrawn_at = now() WHERE id = '\(id)'"),
            ("withdrawn book renamed", "UPDATE books SET title = 'Heron Inlet' WHERE id = '\(id)'"),
            ("back on the shelves", "UPDATE books SET withdrawn_at = NULL WHERE id = '\(id)'"),
            ("deleted", "DELETE FROM books WHERE id = '\(id)'"),
        ]
    }

    @Test func theWordsKeptForCommonWordsFollowEveryChangeOfTheirBook() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { client in
            let first = try await ingestBook(client, title: "Heron Bay", author: "Ada Marsh", description: "Reeds and water.")
            _ = try await ingestBook(client, title: "Quiet Water", author: "Jane Heron")
            let id = first.replacingOccurrences(of: "urn:uuid:", with: "")
            func check(_ change: String) async throws {
                #expect(try await TestDatabase.query(Self.postingsDifferences, on: url) == ["0"], "\(change)")
            }
            let words = "SELECT string_agg(word, ' ' ORDER BY word) FROM search_postings WHERE book_id = '\(id)'"
            #expect(try await TestDatabase.query(words, on: url) == ["ada bay heron marsh"], "title and author words, not the description's")
            try await check("ingested")
            for (change, sql) in Self.everyChange(of: id) {
                try await TestDatabase.execute(sql, on: url)
                try await check(change)
            }
            #expect(try await TestDatabase.query("SELECT count(DISTINCT book_id)::text FROM search_postings", on: url) == ["1"])
        }
    }

    /// What `search_word_totals` must hold: for each word of the books on the shelves, how many have it, and how many
    /// in their title, subtitle, authors, series or subjects; a count of the words that differ (a word no book has
    /// any more may stay with zeros).
    static let wordCountDifferences = """
        WITH expected AS (SELECT w.lexeme AS word, count(*)::int AS books, (count(*) FILTER (WHERE w.weights && '{A,B,C}'))::int AS in_fields
            FROM books b, unnest(b.search) w WHERE b.withdrawn_at IS NULL GROUP BY w.lexeme)
        SELECT ((SELECT count(*) FROM (SELECT * FROM expected EXCEPT SELECT word, books, in_fields FROM search_word_totals) missing)
            + (SELECT count(*) FROM search_word_totals c WHERE c.books <> 0
                AND NOT EXISTS (SELECT 1 FROM expected e WHERE e.word = c.word)))::text
        """

    @Test func theBooksPerWordFollowEveryChangeOfTheirBook() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { client in
            let first = try await ingestBook(client, title: "Heron Bay", author: "Ada Marsh", description: "Reeds and water, heron.")
            _ = try await ingestBook(client, title: "Quiet Water", author: "Jane Heron")
            let id = first.replacingOccurrences(of: "urn:uuid:", with: "")
            let heron = "SELECT books || ' ' || in_fields FROM search_word_totals WHERE word = 'heron'"
            #expect(try await TestDatabase.query(heron, on: url) == ["2 2"])
            let water = "SELECT books || ' ' || in_fields FROM search_word_totals WHERE word = 'water'"
            #expect(try await TestDatabase.query(water, on: url) == ["2 1"], "one in a title, one in a description")
            #expect(try await TestDatabase.query(Self.wordCountDifferences, on: url) == ["0"], "ingested")
            for (change, sql) in Self.everyChange(of: id) {
                try await TestDatabase.execute(sql, on: url)
                #expect(try await TestDatabase.query(Self.wordCountDifferences, on: url) == ["0"], "\(change)")
            }
            #expect(try await TestDatabase.query(heron, on: url) == ["1 1"])
        }
    }

    /// Concurrent transactions sharing words count them in stripes of their own (they do not wait on each other's
    /// rows): the sums stay exact through inserts and withdrawals made at once.
    @Test func concurrentChangesSharingWordsKeepTheirCountsExact() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { client in
            _ = try await ingestBook(client, title: "Shared Words", description: "The river and the sea.")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 1...16 {
                    group.addTask {
                        try await TestDatabase.execute(
                            """
                            INSERT INTO books (id, title, sort_title, sort_author, authors, languages, description, epub_sha256, epub_size,
                                copies, copies_available, checkouts, popularity)
                            SELECT gen_random_uuid(), 'Shared River \(n)', 'shared river \(n)', sort_author, authors, languages, description,
                                md5(random()::text), epub_size, 1, 1, 0, 0 FROM books WHERE title = 'Shared Words'
                            """,
                            on: url
                        )
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await TestDatabase.query(Self.wordCountDifferences, on: url) == ["0"], "inserted at once")
            let river = "SELECT books || ' ' || in_fields FROM search_word_totals WHERE word = 'river'"
            #expect(try await TestDatabase.query(river, on: url) == ["17 16"])
            let stripes = try await TestDatabase.query("SELECT count(*)::text FROM search_word_counts WHERE word = 'river'", on: url)
            #expect(Int(stripes.first ?? "") ?? 0 > 1, "counted in more than one stripe")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 1...8 {
                    group.addTask {
                        try await TestDatabase.execute("UPDATE books SET withdrawn_at = now() WHERE title = 'Shared River \(n)'", on: url)
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await TestDatabase.query(Self.wordCountDifferences, on: url) == ["0"], "withdrawn at once")
            #expect(try await TestDatabase.query(river, on: url) == ["9 8"])
        }
    }

    @Test func aWordInManyBooksAllInTheirFieldsIsRankedFromItsKeptEntries() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { client in
            _ = try await ingestBook(client, title: "Harbor Lights", description: "Boats at night.")
            // 1,500 copies, the word in the title of half of them and in the subjects of the others: more than the
            // kept entries answer alone (`popularCandidates`), fewer than the count's bound, every match in those fields.
            let count = FeedPostgresRepository.popularCandidates + 500
            try await TestDatabase.execute(
                """
                INSERT INTO books (id, title, sort_title, sort_author, authors, languages, subjects, description, epub_sha256, epub_size,
                    copies, copies_available, checkouts, popularity)
                SELECT gen_random_uuid(), CASE WHEN g % 2 = 0 THEN 'Harbor ' || g ELSE 'Field ' || g END, 'harbor ' || lpad(g::text, 6, '0'),
                    b.sort_author, b.authors, b.languages, CASE WHEN g % 2 = 0 THEN '{}'::text[] ELSE ARRAY['Harbor towns'] END, 'Boats.',
                    md5(random()::text || g), b.epub_size, 1, 1, g % 100, g % 100
                FROM books b, generate_series(1, \(count)) g WHERE b.title = 'Harbor Lights'
                """,
                on: url
            )
            let first = try await opds2(client, "/opds/search?q=harbor&size=50")
            #expect((first["metadata"] as? [String: Any])?["numberOfItems"] as? Int == count + 1, "the kept count")
            // Every page, as one list, is every match in the order of their rank (the title's weight first), ties by id: the
            // kept entries' order (the rows' order would break ties by title).
            let listed = try await pagedIDs(client, "/opds/search?q=harbor&size=100").flatMap { $0 }
                .map { $0.replacingOccurrences(of: "urn:uuid:", with: "") }
            let expected = try await TestDatabase.query(
                """
                SELECT id::text FROM books WHERE search @@ to_tsquery('simple', 'harbor:*')
                ORDER BY ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', search, to_tsquery('simple', 'harbor:*'))::real DESC, id ASC
                """,
                on: url
            )
            #expect(listed.count == count + 1 && listed == expected, "\(listed.count) of \(expected.count)")
            // A prefix of the word (a patron still typing) stands for it alone here: the same list.
            let typing = try await opds2(client, "/opds/search?q=harb&size=50")
            #expect((typing["metadata"] as? [String: Any])?["numberOfItems"] as? Int == count + 1)
            #expect(ids(typing).map { $0.replacingOccurrences(of: "urn:uuid:", with: "") } == Array(expected.prefix(50)))
            // A page by number (an offset into the kept entries) is the same list's.
            let third = try await opds2(client, "/opds/search?q=harbor&size=50&page=3")
            #expect(ids(third).map { $0.replacingOccurrences(of: "urn:uuid:", with: "") } == Array(expected[100..<150]))
            // A book the patron hid is left out of the page and the total; the page is still full.
            let hiddenBook = try #require(UUID(uuidString: expected[0]))
            let signedIn = try await TestDatabase.withClient(url) { client, logger in
                try await FeedPostgresRepository(books: BookPostgresRepository(client: client))
                    .search(.init(q: "harbor", size: 50), hidden: [hiddenBook], logger: logger)
            }
            #expect(signedIn.total == count && signedIn.books.count == 50 && !signedIn.books.contains { $0.id == hiddenBook })
            #expect(signedIn.books.first?.id.uuidString.lowercased() == expected[1])
            // How many of a patron's hidden books a search finds: words alone through `hidden_matches`, a search with a
            // filter through its own statement; the same count either way, and a book the search misses not in it.
            let (wordsAlone, filtered, none) = try await TestDatabase.withClient(url) { client, logger in
                let feeds = FeedPostgresRepository(books: BookPostgresRepository(client: client))
                let among = [hiddenBook, UUID(uuidString: expected[1])!, UUID()]
                return (
                    try await feeds.matchCount(.init(q: "harbor", size: 50), among: among, logger: logger),
                    try await feeds.matchCount(.init(q: "harbor", title: "", size: 50), among: among, logger: logger),
                    try await feeds.matchCount(.init(q: "zzzzqx", size: 50), among: among, logger: logger)
                )
            }
            #expect(wordsAlone == 2 && filtered == 2 && none == 0, "\(wordsAlone) \(filtered) \(none)")
            // A book with the word in its description alone comes after every book with it in those fields: the pages
            // among those are still read from the kept entries, the last one from the rows; one order throughout.
            _ = try await ingestBook(client, title: "Night Boats", description: "A harbor at dawn, a harbor at dusk, harbor lights.")
            let mixed = try await opds2(client, "/opds/search?q=harbor&size=50")
            #expect((mixed["metadata"] as? [String: Any])?["numberOfItems"] as? Int == count + 2)
            let mixedListed = try await pagedIDs(client, "/opds/search?q=harbor&size=100").flatMap { $0 }
                .map { $0.replacingOccurrences(of: "urn:uuid:", with: "") }
            let mixedExpected = try await TestDatabase.query(
                """
                SELECT id::text FROM books WHERE search @@ to_tsquery('simple', 'harbor:*') ORDER BY (ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', search,
                    to_tsquery('simple', 'harbor:*')) + CASE WHEN search @@ to_tsquery('simple', 'harbor:*ABC') THEN 100 ELSE 0 END)::real DESC, id ASC
                """,
                on: url
            )
            #expect(mixedListed.count == count + 2 && mixedListed == mixedExpected, "\(mixedListed.count) of \(mixedExpected.count)")
            let described = try await TestDatabase.query("SELECT id::text FROM books WHERE title = 'Night Boats'", on: url)
            #expect(mixedListed.last.map { [$0] } == described, "three mentions in a description rank below one in the subjects")
            // Deeper than `deepestResult`: empty, with the kept total.
            let deep = try await opds2(client, "/opds/search?q=harb&size=50&page=\(FeedPostgresRepository.deepestResult / 50 + 1)")
            #expect(ids(deep).isEmpty)
        }
    }

    /// A word in a few books, all with it in their titles or subjects, is read from its kept entries too (a prepared
    /// statement): every page, by cursor and by number, in the order of its rank with ties by id, and the kept count as
    /// the total; a word that no book has finds nothing without a search statement.
    @Test func aWordInFewBooksIsReadFromItsKeptEntriesInRankOrder() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { client in
            _ = try await ingestBook(client, title: "Otter Creek", description: "Water.")
            try await TestDatabase.execute(
                """
                INSERT INTO books (id, title, sort_title, sort_author, authors, languages, subjects, description, epub_sha256, epub_size,
                    copies, copies_available, checkouts, popularity)
                SELECT gen_random_uuid(), CASE WHEN g % 3 = 0 THEN 'Otter ' || g ELSE 'River ' || g END, 'otter ' || lpad(g::text, 6, '0'),
                    b.sort_author, b.authors, b.languages, CASE WHEN g % 3 = 0 THEN '{}'::text[] ELSE ARRAY['Otter lore'] END, 'Quiet.',
                    md5(random()::text || g), b.epub_size, 1, 1, g % 7, g % 7
                FROM books b, generate_series(1, 40) g WHERE b.title = 'Otter Creek'
                """,
                on: url
            )
            let expected = try await TestDatabase.query(
                """
                SELECT id::text FROM books WHERE search @@ to_tsquery('simple', 'otter:*')
                ORDER BY ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', search, to_tsquery('simple', 'otter:*'))::real DESC, id ASC
                """,
                on: url
            )
            let first = try await opds2(client, "/opds/search?q=otter&size=7")
            #expect((first["metadata"] as? [String: Any])?["numberOfItems"] as? Int == 41, "the kept count")
            let listed = try await pagedIDs(client, "/opds/search?q=otter&size=7").flatMap { $0 }
                .map { $0.replacingOccurrences(of: "urn:uuid:", with: "") }
            #expect(expected.count == 41 && listed == expected, "\(listed.count) of \(expected.count)")
            let third = try await opds2(client, "/opds/search?q=otter&size=7&page=3")
            #expect(ids(third).map { $0.replacingOccurrences(of: "urn:uuid:", with: "") } == Array(expected[14..<21]))
            let nothing = try await opds2(client, "/opds/search?q=qzxvbnkw&size=7")
            #expect(ids(nothing).isEmpty && (nothing["metadata"] as? [String: Any])?["numberOfItems"] as? Int == 0)
        }
    }

    /// The pages of a word in many books are read in order from the index of the kept entries by the search's key: the
    /// index's expression (migration 20) must be the one `search_kept_entries_page` orders by in each of
    /// its statements (else every entry is read and sorted again), and both must add `inFieldsBoost`.
    @Test func theKeptEntriesAreIndexedByTheKeyTheirPagesAreReadIn() {
        let boost = FeedPostgresRepository.inFieldsBoost
        let index = CatalogMigration.keptSearchEntriesInTheOrderOfAOneWordSearch.sql
        #expect(index.contains("search_postings (word, ((rank + \(boost))::real) DESC, book_id)"))
        let page = CatalogFunction.searchKeptEntriesPage.sql
        #expect(page.components(separatedBy: "ORDER BY (p.rank + \(boost))::real DESC, p.book_id LIMIT").count == 3, "both statements")
    }

    @Test func aMisspelledWordWhoseCorrectionIsInManyBooksListsTheMostBorrowedOfThem() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { client in
            _ = try await ingestBook(client, title: "Lighthouse Keeper")
            let count = FeedPostgresRepository.popularCandidates + 500
            try await TestDatabase.execute(
                """
                INSERT INTO books (id, title, sort_title, sort_author, authors, languages, epub_sha256, epub_size, copies, copies_available,
                    checkouts, popularity)
                SELECT gen_random_uuid(), 'Lighthouse ' || g, 'lighthouse ' || lpad(g::text, 6, '0'), b.sort_author, b.authors, b.languages,
                    md5(random()::text || g), b.epub_size, 1, 1, g % 100, g % 100
                FROM books b, generate_series(1, \(count)) g WHERE b.title = 'Lighthouse Keeper'
                """,
                on: url
            )
            // Nothing matches the typo; its correction is in 1,501 books (counted from the kept counts): the list is the best of
            // the most borrowed.
            let found = try await opds2(client, "/opds/search?q=lighthuose&size=50")
            #expect((found["metadata"] as? [String: Any])?["numberOfItems"] as? Int == FeedPostgresRepository.fuzzyLimit)
            let listed = try await pagedIDs(client, "/opds/search?q=lighthuose&size=50").flatMap { $0 }
                .map { $0.replacingOccurrences(of: "urn:uuid:", with: "") }
            #expect(listed.count == FeedPostgresRepository.fuzzyLimit && Set(listed).count == listed.count)
            let lessBorrowed = try await TestDatabase.query(
                """
                WITH popular AS (SELECT id FROM books ORDER BY popularity DESC, id DESC LIMIT \(FeedPostgresRepository.correctedCandidates))
                SELECT count(*)::text FROM books WHERE id = ANY('{\(listed.joined(separator: ","))}'::uuid[]) AND id NOT IN (SELECT id FROM popular)
                """,
                on: url
            )
            #expect(lessBorrowed == ["0"], "every book listed is among the most borrowed with the correction (its candidates)")
        }
    }
}
