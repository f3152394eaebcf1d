import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// Search: the request's fields, the full-text query, corrections of misspelled words (a one-word search is
/// `FeedPostgresRepository+OneWordSearch.swift`).
extension FeedPostgresRepository {
    struct SearchRequest: Sendable {
        var q: String?
        var title: String?
        var author: String?
        var genre: String?
        var publisher: String?
        var language: String?
        var isbn: String?
        var availableOnly = false
        var accessibility = AccessibilityFacet.all
        var format = FormatFacet.all
        /// A teen's or a child's card: only the books it fits.
        var audience: AudienceLimit?
        var sort: SortKey?
        var order: SortOrder = .asc
        var page = 1
        var size = 50
        /// The last book of the previous page (keyset paging); `page` is not used when it is set.
        var after: PageCursor?

        /// What `after` cursors of this search's pages carry in `sort`.
        var cursorSort: String { sort?.rawValue ?? "relevance" }

        /// Whether anything but the query narrows its matches (a filter or a facet).
        var narrowed: Bool {
            title != nil || author != nil || genre != nil || publisher != nil || language != nil || isbn != nil || availableOnly
                || accessibility.condition != nil || format.condition != nil || audience != nil
        }
    }

    /// Full-text matches below this many are topped up with the matches of the query's words corrected (typos).
    static let fewMatches = 5
    /// How many typo-tolerant matches a search lists at most.
    static let fuzzyLimit = 100
    /// How many catalogue words may stand for one word of the query.
    static let correctionsPerWord = 3
    /// Matches are counted up to this many; above it a search has "more than 10,000" results, and ranking every one of
    /// them (a word in most books at a million books: seconds) is not done.
    static let countBound = 10_000
    /// Above `countBound`, the results are this many of the most borrowed matches, ranked among themselves.
    static let popularCandidates = 1_000
    /// A corrected query's candidates: as many as its list is long (`fuzzyLimit`), its most borrowed matches ranked
    /// (each candidate's row is read and ranked: a thousand of a common correction cost ~15 ms at a million books,
    /// three hundred ~4 ms).
    static let correctedCandidates = fuzzyLimit
    /// Added to the rank of a book with a query's only word in its title, authors, series or subjects: more than any
    /// description gives (0.1 an occurrence). Migrations 20 (`search_postings_by_key`) and 24 (`search_postings_page`,
    /// `search_kept_entries_page`) write it as 100: a change needs a migration that replaces all three.
    static let inFieldsBoost = 100
    /// How deep `page` reaches when there is no total: a page beyond is empty rather than read through a longer offset.
    static let deepestResult = 10_000

    /// Search, best first: full-text over weighted fields (whole words, the last one also as a prefix); when that finds
    /// little, the matches of the query with its words corrected follow the few full-text matches (every word, then any
    /// word, each a word as typed or one of the catalogue's words nearest it); an ISBN finds its book directly. `total`
    /// is nil when there are more than `countBound` matches.
    func search(_ request: SearchRequest, hidden: [UUID], logger: Logger) async throws -> Page {
        let page = try await runSearch(request, hidden: hidden, logger: logger)
        // A sorted search keeps its order: typo tolerance only when nothing matched at all.
        guard request.after == nil, let q = request.q, !q.isEmpty, ISBN.normalized(q) == nil, let total = page.total, total < Self.fewMatches,
            request.sort == nil || total == 0
        else { return page }
        let words = Self.words(q)
        guard !words.isEmpty else { return page }
        let corrections = try await corrections(of: words, logger: logger)
        // Each word of the query: itself (as `tsquery` would have it) or one of its corrections.
        let alternatives = words.indices.map { index in
            [Self.term(words[index], last: index == words.count - 1)] + corrections[index].filter { $0 != words[index] }
        }
        let everyWord = alternatives.map { "(\($0.joined(separator: " | ")))" }.joined(separator: " & ")
        let anyWord = alternatives.joined().joined(separator: " | ")
        // With no word corrected, every word's matches are the query's own: only any word's may add to them.
        let anyCorrection = alternatives.contains { $0.count > 1 }
        if request.sort != nil {
            var corrected =
                anyCorrection ? try await runSearch(request, corrected: CorrectedQuery(query: everyWord), hidden: hidden, logger: logger) : page
            if corrected.books.isEmpty && words.count > 1 {
                corrected = try await runSearch(request, corrected: CorrectedQuery(query: anyWord), hidden: hidden, logger: logger)
            }
            corrected.corrected = true
            return corrected
        }
        // Every full-text match, then the corrected matches not among them, paged as one list (the same on every page).
        var first = request
        first.page = 1
        first.size = Self.fuzzyLimit
        var merged =
            request.page == 1 && page.books.count == total
            ? page.books : try await runSearch(first, hidden: hidden, logger: logger).books
        var known = Set(merged.map(\.id))
        // Whose kept entries give the candidates when a corrected query has many matches: every match of all the words
        // has one of the longest word's spellings; a match of any word, one of any word's (and a book with any of
        // those is a match: one word, or any word).
        let longest = words.indices.max { words[$0].count < words[$1].count } ?? 0
        let queries = [
            CorrectedQuery(query: everyWord, spellings: [words[longest]] + corrections[longest], anySpellingMatches: words.count == 1),
            CorrectedQuery(query: anyWord, spellings: words.indices.flatMap { [words[$0]] + corrections[$0] }, anySpellingMatches: true),
        ]
        for (index, query) in queries.enumerated() where index == 0 ? anyCorrection : words.count > 1 && merged.count < Self.fewMatches {
            let found =
                request.narrowed
                ? try await runSearch(first, corrected: query, hidden: hidden, logger: logger).books
                : try await correctedMatches(query, hidden: hidden, logger: logger)
            merged += found.filter { known.insert($0.id).inserted }.prefix(max(0, Self.fuzzyLimit - merged.count))
        }
        let start = min(merged.count, (request.page - 1) * request.size)
        let end = min(merged.count, start + request.size)
        return Page(
            books: Array(merged[start..<end]),
            next: nil,
            total: merged.count,
            nextPage: end < merged.count ? request.page + 1 : nil,
            corrected: true
        )
    }

    /// The catalogue's words nearest each of `words` (`Corrections`).
    func corrections(of words: [String], logger: Logger) async throws -> [[String]] {
        try await books.read { client in
            var found = Array(repeating: [String](), count: words.count)
            let rows = try await client.run(Corrections.self, words, logger: logger)
            for try await row in rows {
                let (number, word) = try row.decode((Int, String).self)
                if word.allSatisfy({ $0.isLetter || $0.isNumber }) { found[number - 1].append(word) }
            }
            return found
        }
    }

    /// The words of `q` as search matches them: letters and digits only, lowercased, at most 16 of at most 64 characters.
    static func words(_ q: String) -> [String] {
        q.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber) }).prefix(16).map { String($0.prefix(64)) }
    }

    /// A word as the tsquery has it: whole, but for the last word of the query, which also matches as a prefix from
    /// four letters on (what a patron typing is still finishing). A prefix of one to three letters would stand for
    /// thousands of words; a prefix on every word made "the" stand for "then", "there", ...
    static func term(_ word: String, last: Bool) -> String {
        last && word.count >= 4 ? "\(word):*" : word
    }

    /// `q` as a tsquery: every word required (see `term`).
    static func tsquery(_ q: String) -> String? {
        let words = words(q)
        guard !words.isEmpty else { return nil }
        return words.indices.map { term(words[$0], last: $0 == words.count - 1) }.joined(separator: " & ")
    }

    /// A search for the query's words corrected (typos), in place of its full-text matches.
    struct CorrectedQuery {
        /// The tsquery of the words corrected.
        var query: String
        /// The words whose kept entries give its candidates when it has more than `correctedCandidates` matches (it
        /// lists at most `fuzzyLimit`: ranking up to `countBound` matches of a correction took ~60 ms at a million
        /// books), without repeats.
        var spellings: [String]
        /// Whether every book with one of `spellings` matches, so that the books of the commonest count its matches.
        var anySpellingMatches: Bool

        init(query: String, spellings: [String] = [], anySpellingMatches: Bool = false) {
            var seen = Set<String>()
            self.query = query
            self.spellings = spellings.filter { seen.insert($0).inserted }
            self.anySpellingMatches = anySpellingMatches && !spellings.isEmpty
        }
    }

    /// What a book must meet to match `request` (`corrected` in place of its query), with its binds in `sql`; and the
    /// query's `to_tsquery` expression when it has one (results are ranked by it).
    private func matchConditions(
        _ request: SearchRequest,
        corrected: CorrectedQuery?,
        sql: inout SQL
    ) throws -> (
        conditions: [String], tsquery: String?, searched: String?
    ) {
        var conditions = ["withdrawn_at IS NULL"]
        var tsquery: String?
        var searched: String?
        if let q = request.q?.trimmingCharacters(in: .whitespacesAndNewlines), !q.isEmpty {
            if let isbn = ISBN.normalized(q) {
                conditions.append("isbn = \(try sql.bind(isbn))")
            } else if let query = corrected?.query ?? Self.tsquery(q) {
                let expression = "to_tsquery('simple', immutable_unaccent(\(try sql.bind(query))))"
                conditions.append("search @@ \(expression)")
                tsquery = expression
                searched = query
            } else {
                conditions.append("false")
            }
        }
        if let title = request.title {
            conditions.append("immutable_unaccent(title) ILIKE immutable_unaccent(\(try sql.bind("%" + Self.escapeLike(title) + "%")))")
        }
        if let author = request.author {
            conditions.append(
                "immutable_unaccent(array_to_string(authors, ' ')) ILIKE immutable_unaccent(\(try sql.bind("%" + Self.escapeLike(author) + "%")))"
            )
        }
        if let genre = request.genre { conditions.append("\(try sql.bind(genre)) = ANY(genres)") }
        if let publisher = request.publisher { conditions.append("publisher ILIKE \(try sql.bind("%" + Self.escapeLike(publisher) + "%"))") }
        if let language = request.language {
            conditions.append(
                "EXISTS (SELECT 1 FROM unnest(languages) l WHERE lower(l) LIKE \(try sql.bind(Self.escapeLike(language.lowercased()) + "%")))"
            )
        }
        if let isbn = request.isbn { conditions.append("isbn = \(try sql.bind(ISBN.normalized(isbn) ?? "invalid"))") }
        if request.availableOnly { conditions.append("(open_access OR copies_available > 0)") }
        if let condition = request.accessibility.condition { conditions.append(condition) }
        if let condition = request.format.condition { conditions.append(condition) }
        if let audience = request.audience { conditions.append(audience.condition) }
        return (conditions, tsquery, searched)
    }

    /// How many of `ids` match `request`'s own query and filters (its corrections aside): a patron's hidden books that a
    /// search counts among its results (`Page.hiding`).
    func matchCount(_ request: SearchRequest, among ids: [UUID], logger: Logger) async throws -> Int {
        guard !ids.isEmpty else { return 0 }
        var sql = SQL()
        let (conditions, _, searched) = try matchConditions(request, corrected: nil, sql: &sql)
        // Words alone, no filter or facet: the statement planned once a session.
        if !request.narrowed, let searched { return try await hiddenMatches(ids, query: searched, logger: logger) }
        sql.text = "SELECT count(*)::int FROM books WHERE id = ANY(\(try sql.bind(ids))) AND \(conditions.joined(separator: " AND "))"
        let query = sql.query
        return try await books.read { client in
            for try await row in try await client.query(query, logger: logger) { return try row.decode(Int.self) }
            return 0
        }
    }

    /// One search statement: the query's full-text matches, or those of `corrected` in its place.
    private func runSearch(
        _ request: SearchRequest,
        corrected: CorrectedQuery? = nil,
        hidden: [UUID],
        logger: Logger
    ) async throws -> Page {
        var sql = SQL()
        let match = try matchConditions(request, corrected: corrected, sql: &sql)
        var conditions = match.conditions
        let tsquery = match.tsquery
        var rank = tsquery.map { "ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', search, \($0))" } ?? "0.0::float8"
        // The word whose kept rows (`search_postings`) give a common word's candidates: the longest, likely the rarest;
        // and the query's only word, if it has one.
        var postingsWord: String?
        var singleWord: String?
        let words = Self.words(request.q ?? "")
        if tsquery != nil, corrected == nil, let longest = words.max(by: { $0.count < $1.count }) {
            postingsWord = try sql.bind(longest)
            singleWord = words.count == 1 ? longest : nil
        }
        // One word and no filter: what the kept counts say of it (one prepared read, with the page of a word past the
        // bound), which counts its matches and may answer it from its kept entries (`oneWordPage`).
        var kept: KeptWord?
        let window = PageWindow(request)
        if !request.narrowed, let word = singleWord {
            let page = request.sort == nil ? window : nil
            kept = try await keptWord(word, prefix: Self.term(word, last: true) != word, page: page, hidden: hidden, logger: logger)
        }
        // No book on the shelves has the word (a typo, mostly): nothing matches, and no statement need say so.
        if let kept, kept.words == 0 { return Page(books: [], next: nil, total: 0) }
        // The fewest matches the kept counts vouch for (the books of the commonest word the query stands for), so
        // that a query past the bound is not counted in the books.
        let keptMatches = kept?.mostBooks ?? 0
        // One word and nothing else: a book with it in its title, authors, series or subjects ranks above every book
        // with it in the description alone (`inFieldsBoost`), and equal ranks go by id: the order of the word's kept
        // entries (`search_postings`), so that pages read from them and pages read from the rows follow one order.
        let oneWordOrder = request.sort == nil && !request.narrowed && singleWord != nil
        if oneWordOrder, let word = singleWord {
            let term = Self.term(word, last: true)
            let inFields = "to_tsquery('simple', immutable_unaccent(\(try sql.bind(term + (term.hasSuffix(":*") ? "ABC" : ":ABC")))))"
            rank = "\(rank) + CASE WHEN search @@ \(inFields) THEN \(Self.inFieldsBoost) ELSE 0 END"
        }
        if !hidden.isEmpty { conditions.append("NOT (id = ANY(\(try sql.bind(hidden))))") }
        let matching = conditions.joined(separator: " AND ")
        if oneWordOrder, let word = singleWord, let kept,
            let page = try await oneWordPage(word, kept: kept, request: request, window: window, hidden: hidden, logger: logger)
        {
            return page
        }

        let offset = request.after == nil ? (request.page - 1) * request.size : 0
        // A corrected query's unsorted list is short (`fuzzyLimit`): its matches are ranked up to `correctedCandidates`,
        // and past that, that many of them.
        let candidateCount = corrected == nil ? Self.popularCandidates : Self.correctedCandidates
        let bound = corrected == nil || request.sort != nil ? Self.countBound : Self.correctedCandidates
        // One statement: the bounded count (an InitPlan, run once) and the page. The count stops at the bound
        // (counting a word that most books contain read them all) and chooses which candidates are ranked: the
        // branches below carry it as a one-time filter, so only the chosen one reads rows.
        let countedMatches = "(SELECT n FROM counted)"
        /// The `counted` CTE, whose `n` is the number of matches up to the bound (`bound + 1` past it), `booksCounted`
        /// counting them in the books. A query that the kept counts put in more books than the bound is not counted in
        /// the books (a bitmap scan of ~3,200 pages for a word alone at a million books).
        func counted(booksCounted: String) -> String {
            if keptMatches - hidden.count > bound { return "counted AS (SELECT \(bound + 1) AS n)" }
            return "counted AS (SELECT \(booksCounted) AS n)"
        }
        // A page deeper than `deepestResult` is empty: its statement only counts.
        let pageLimit = offset < Self.deepestResult ? request.size + 1 : 0

        // Matches are ordered as narrow rows (id, key, sort title) and only the page's books are read whole. A page
        // starts after the previous page's last book (`after`, whose key and title it carries) or at an offset.
        let order: String
        let candidates: String
        var ctes: [String]
        var pageFilter = ""
        if let sort = request.sort {
            // The sort's index reads the rows after the cursor in order and stops at the page.
            let expression = sort.expression.sql
            let direction = request.order == .asc ? "ASC" : "DESC"
            var after = ""
            if let cursor = request.after { after = " AND " + (try sql.after(cursor, sort: sort, order: request.order)) }
            ctes = [counted(booksCounted: "(SELECT count(*)::int FROM (SELECT 1 FROM books WHERE \(matching) LIMIT \(Self.countBound + 1)) bounded)")]
            order = "match_key \(direction), match_id \(direction)"
            candidates =
                "SELECT id AS match_id, \(expression) AS match_key, ''::text AS match_title FROM books WHERE \(matching)\(after)"
                + " ORDER BY \(expression) \(direction), id \(direction) LIMIT \(pageLimit == 0 ? 0 : offset + pageLimit)"
        } else {
            // Ranked here, with the fields' weights (title, then authors and series, subjects, description), among
            // candidates: every match up to `countBound`. Above it, `candidateCount` of the most borrowed matches: those
            // with the query's longest word in their title, authors, series or subjects (its kept rows,
            // `search_postings`, in popularity order; each book checked against the whole query) when there are that
            // many, otherwise those read from the popularity index (soon enough for a word in most books).
            order = "match_key DESC, match_title ASC, match_id ASC"
            let columns = "id AS match_id, (\(rank))::real AS match_key, \(oneWordOrder ? "''::text" : "sort_title") AS match_title"
            let select = "SELECT \(columns) FROM books WHERE \(matching)"
            let common = "\(countedMatches) > \(bound)"
            let enough = "(SELECT enough FROM postings_counted)"
            let postings: String
            // A word alone with fewer kept entries than its candidates never has enough of them: not read.
            if let word = postingsWord, (kept?.wordInFields ?? candidateCount) >= candidateCount {
                // Each book is checked against the whole query and ranked by it. OFFSET 0 keeps the book a lookup per
                // entry, in the word's order, up to the limit (without it the planner joined every match of the query).
                postings =
                    "SELECT b.* FROM (SELECT book_id, popularity FROM search_postings"
                    + " WHERE word = \(Self.postingsTerm(word)) ORDER BY popularity DESC, book_id DESC) p"
                    + " CROSS JOIN LATERAL (SELECT \(columns) FROM books WHERE id = p.book_id AND \(matching) OFFSET 0) b"
                    + " WHERE \(common) ORDER BY p.popularity DESC, p.book_id DESC LIMIT \(candidateCount)"
            } else if let spellings = corrected?.spellings, !spellings.isEmpty {
                // The most borrowed entries of each spelling, in popularity order, each book checked against the query.
                postings =
                    "SELECT b.* FROM (SELECT DISTINCT e.book_id, e.popularity FROM unnest(\(try sql.bind(spellings))::text[]) spelling"
                    + " CROSS JOIN LATERAL (SELECT book_id, popularity FROM search_postings WHERE word = \(Self.postingsTerm("spelling"))"
                    + " ORDER BY popularity DESC, book_id DESC LIMIT \(candidateCount)) e ORDER BY e.popularity DESC, e.book_id DESC) p"
                    + " CROSS JOIN LATERAL (SELECT \(columns) FROM books WHERE id = p.book_id AND \(matching) OFFSET 0) b"
                    + " WHERE \(common) ORDER BY p.popularity DESC, p.book_id DESC LIMIT \(candidateCount)"
            } else {
                postings = "SELECT NULL::uuid, NULL::real, NULL::text WHERE false"
            }
            // Every match up to the bound, ranked: counted and listed in one reading of their rows.
            ctes = [
                "bounded AS MATERIALIZED (\(select) LIMIT \(bound + 1))", counted(booksCounted: "(SELECT count(*)::int FROM bounded)"),
                "postings_matches AS MATERIALIZED (\(postings))",
                // Read by two branches, counted once.
                "postings_counted AS (SELECT count(*) >= \(candidateCount) AS enough FROM postings_matches)",
            ]
            let branches = [
                "(SELECT * FROM bounded WHERE \(countedMatches) <= \(bound))",
                "(SELECT * FROM postings_matches WHERE \(common) AND \(enough))",
                "(\(select) AND \(common) AND NOT \(enough) ORDER BY popularity DESC, id DESC LIMIT \(candidateCount))",
            ]
            candidates = branches.joined(separator: " UNION ALL ")
            if let cursor = request.after {
                let (key, title, id) = (try sql.bind(cursor.value), try sql.bind(cursor.title ?? ""), try sql.bind(cursor.id))
                pageFilter = " WHERE match_key < \(key)::real OR (match_key = \(key)::real AND (match_title, match_id) > (\(title), \(id)))"
            }
        }
        // The count's row comes back even when the page is empty (the LEFT JOIN), with no book in it.
        sql.text = """
            WITH \(ctes.joined(separator: ",\n")),
            matches AS MATERIALIZED (\(candidates)),
            page AS (SELECT * FROM matches\(pageFilter) ORDER BY \(order) LIMIT \(pageLimit) OFFSET \(offset)),
            found AS (SELECT \(BookPostgresRepository.entryColumns), page.match_key::text AS match_key_text, page.match_title,
                page.match_key, page.match_id FROM page JOIN books ON books.id = page.match_id)
            SELECT found.*, counted.n FROM counted LEFT JOIN found ON true ORDER BY \(order)
            """
        let query = sql.query
        let (counted, rows) = try await books.read { client in
            var counted = 0
            var rows: [(book: BookEntry, key: String, title: String)] = []
            for try await row in try await client.query(query, logger: logger) {
                let cells = row.makeRandomAccess()
                let column = BookPostgresRepository.entryColumnCount
                counted = try cells[cells.count - 1].decode(Int.self)
                guard try cells[0].decode(UUID?.self) != nil else { continue }
                rows.append(
                    (try BookPostgresRepository.decodeEntry(cells), try cells[column].decode(String.self), try cells[column + 1].decode(String.self))
                )
            }
            return (counted, rows)
        }
        let total = counted > bound ? nil : counted
        let next = rows.count > request.size ? rows[request.size - 1] : nil
        return Page(
            books: rows.prefix(request.size).map(\.book),
            next: next.map { PageCursor(value: $0.key, id: $0.book.id, sort: request.cursorSort, order: request.order.rawValue, title: $0.title) },
            total: total,
            lookahead: rows.count > request.size ? rows[request.size].book.id : nil
        )
    }

    /// The word bound at `placeholder` (`$n`) as `search_postings` keeps it: the first lexeme of its vector. Migration
    /// 25's `search_word_counts_and_page` and 26's `search_word_page` and `search_corrected_page` write the same
    /// expression (a migration's text cannot call this).
    static func postingsTerm(_ placeholder: String) -> String {
        "(tsvector_to_array(to_tsvector('simple', immutable_unaccent(\(placeholder)))))[1]"
    }

    static func escapeLike(_ text: String) -> String {
        String(text.prefix(200)).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }
}
