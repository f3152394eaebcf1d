import Foundation
import Logging
import PostgresNIO
import PostgresSupport

/// A search for one word and nothing else, answered from the words kept for search (`search_word_counts`,
/// `search_postings`) without reading the matches' rows: the commonest query, and the one whose matches are most.
extension FeedPostgresRepository {
    /// What `search_word_counts` says of the word a query's only word stands for (itself, or every word it begins when
    /// it is a prefix: see `term`).
    struct KeptWord: Sendable {
        /// The word as the kept rows have it (the first lexeme of its vector).
        var word: String
        /// How many catalogue words it stands for (with a book on the shelves), and the first of them.
        var words: Int
        var firstWord: String?
        /// The most books any of them is in: past `countBound`, so are the query's matches.
        var mostBooks: Int
        /// The books the only word it stands for is in, and of those, how many have it in their title, subtitle,
        /// authors, series or subjects (when these are the same, its kept entries are all its matches).
        var books: Int
        var inFields: Int
        /// How many books have the query's word itself in those fields (its kept entries).
        var wordInFields: Int
        /// The page of its `popularCandidates` most borrowed kept entries, ranked, read with the counts when it was
        /// asked for and the word is in more than `countBound` books and in the fields of that many (nil otherwise).
        var commonPage: [(book: BookEntry, key: String)]?
        /// The page of its kept entries in the order of a one-word search, read with the counts when a page was asked
        /// for and it stands for one catalogue word in at most `countBound` books (nil otherwise).
        var entriesPage: [(book: BookEntry, key: String)]?
    }

    /// $1 the query's word, $2 whether it stands for every word it begins, $3 whether to read a page, $4 `countBound`,
    /// $5 `popularCandidates`, $6 and $7 the key and id of the previous page's last book (NULL for none), $8 the page's
    /// size, $9 its offset, $10 the books the patron hid. `search_word_page` (migration 26; a plan PostgreSQL keeps for
    /// the session) reads the word's counts, the sums of its stripes in `search_word_counts` over the range of words it
    /// stands for (the index's both ways: no text has chr(0), so a word alone is [word, word || chr(1))), and, when
    /// asked, the page they call for: past the bound, its most borrowed entries (`search_postings_page`); up to it, for
    /// one catalogue word, its kept entries read in order from their index (`search_postings_by_key`, whose expression
    /// the key is) by `search_kept_entries_page`, the books after the cursor with its key, then those with lower keys.
    /// Either is in the order of a one-word search (rank with `inFieldsBoost`, then id): a row a book after the entry's
    /// columns, or one row without a book. The page's ids are put in order before the books are joined (sorting the
    /// joined rows copied all their columns).
    enum WordPage: PreparedSQL {
        static let sql = """
            SELECT \(BookPostgresRepository.entryColumns), f.kept_word, f.words_kept, f.first_word, f.most_books, f.least_books,
                f.least_in_fields, f.word_in_fields, f.page_read, f.entries_read, f.key::text
            FROM (SELECT * FROM search_word_page($1::text, $2::boolean, $3::boolean, $4::int4, $5::int8, $6::text::real, $7::uuid,
                $8::int8, $9::int8, $10::uuid[]) f ORDER BY f.key DESC, f.book_id ASC) f
            LEFT JOIN books ON books.id = f.book_id
            ORDER BY f.key DESC, f.book_id ASC
            """
    }

    /// $1 the corrected query's tsquery, $2 its spellings, $3 whether every book with one of them matches, $4
    /// `correctedCandidates`, $5 how many to list, $6 the books the patron hid: the corrected query's best matches,
    /// ranked by `search_corrected_page` (migration 26; a plan PostgreSQL keeps for the session), in the order of a
    /// search (rank, sort title, id).
    enum CorrectedPage: PreparedSQL {
        static let sql = """
            SELECT \(BookPostgresRepository.entryColumns)
            FROM (SELECT * FROM search_corrected_page($1::text, $2::text[], $3::boolean, $4::int4, $5::int4, $6::uuid[]) c
                ORDER BY c.key DESC, c.match_title, c.book_id) c
            JOIN books ON books.id = c.book_id
            ORDER BY c.key DESC, c.match_title, c.book_id
            """
    }

    /// $1 the query's words: the catalogue's words nearest each (trigram similarity above pg_trgm's threshold, 0.3),
    /// closest first, at most `correctionsPerWord` each; none for a word shorter than three letters.
    enum Corrections: PreparedSQL {
        static let sql = """
            SELECT q.n::int, near.word FROM unnest($1::text[]) WITH ORDINALITY AS q(word, n)
            CROSS JOIN LATERAL (SELECT word FROM search_words
                WHERE length(q.word) >= 3 AND word % immutable_unaccent(q.word)
                ORDER BY word <-> immutable_unaccent(q.word), word LIMIT \(FeedPostgresRepository.correctionsPerWord)) near
            ORDER BY q.n
            """
    }

    /// $1 the books the patron hid, $2 a tsquery: how many of them it finds (a search's total leaves them out). In a
    /// function planned once a session (`hidden_matches`): as a statement PostgreSQL planned it at every run, ten times
    /// what running it cost.
    enum HiddenMatches: PreparedSQL {
        static let sql = "SELECT hidden_matches($1::uuid[], $2::text)"
    }

    func hiddenMatches(_ hidden: [UUID], query: String, logger: Logger) async throws -> Int {
        try await number(HiddenMatches.self, [hidden, query], logger: logger)
    }

    /// The one number `statement` returns (0 for no row).
    private func number<Statement: PreparedSQL>(
        _ statement: Statement.Type,
        _ values: [(any PostgresThrowingDynamicTypeEncodable)?],
        logger: Logger
    ) async throws -> Int {
        // Every row read (one): a sequence left early gives its pooled connection back only once it ends.
        nonisolated(unsafe) let values = values  // plain values (text, numbers, ids), read by the read's own task only
        return try await books.read { client in
            var number = 0
            for try await value in try await client.run(statement, values: values, logger: logger).decode(Int.self) { number = value }
            return number
        }
    }

    /// Where a one-word page starts (the previous page's last key and id) and how many rows it reads: one more than
    /// the page, to know of a next; none past `deepestResult`.
    struct PageWindow {
        var key: String?
        var id: UUID?
        var size: Int
        var offset: Int

        /// No page: the counts alone.
        static let none = PageWindow(key: nil, id: nil, size: 0, offset: 0)
    }

    /// What the kept counts say of `word`, with the page they call for when one is asked for (`page`): the common page
    /// past `countBound`, the kept entries' page up to it (`WordPage`, one round trip for the counts and the page).
    func keptWord(_ word: String, prefix: Bool, page: PageWindow?, hidden: [UUID], logger: Logger) async throws -> KeptWord {
        try await books.read { client in
            var found = KeptWord(word: word, words: 0, firstWord: nil, mostBooks: 0, books: 0, inFields: 0, wordInFields: 0)
            let window = page ?? .none
            let rows = try await client.run(
                WordPage.self,
                values: [
                    word, prefix, page != nil, Self.countBound, Self.popularCandidates, window.key, window.id, window.size, window.offset, hidden,
                ],
                logger: logger
            )
            var entries: [(book: BookEntry, key: String)] = []
            var (commonRead, entriesRead, countsRead) = (false, false, false)
            // Every row read: a sequence left early gives its pooled connection back only once it ends.
            for try await row in rows {
                let cells = row.makeRandomAccess()
                let first = BookPostgresRepository.entryColumnCount
                func cell<T: PostgresDecodable>(_ index: Int, _ type: T.Type = T.self) throws -> T { try cells[first + index].decode(T.self) }
                // The counts repeat on every row of the page: read once.
                if !countsRead {
                    found = KeptWord(
                        word: try cell(0),
                        words: try cell(1),
                        firstWord: try cell(2),
                        mostBooks: try cell(3),
                        books: try cell(4),
                        inFields: try cell(5),
                        wordInFields: try cell(6)
                    )
                    (commonRead, entriesRead, countsRead) = (try cell(7), try cell(8), true)
                }
                if let key = try cell(9, String?.self) { entries.append((try BookPostgresRepository.decodeEntry(cells), key)) }
            }
            found.commonPage = commonRead ? entries : nil
            found.entriesPage = entriesRead ? entries : nil
            return found
        }
    }

    /// The page of a search for `word` alone when its kept rows answer it, nil otherwise. Past `countBound` matches
    /// (no total): the word's `popularCandidates` most borrowed kept entries, ranked (`KeptWord.commonPage`). Up to it,
    /// when the word stands for one catalogue word: the kept count is the total, and a page among the books with the
    /// word in their titles, authors, series or subjects (which rank first) is read in order from its kept entries
    /// (`KeptWord.entriesPage`: a rare word's search, a typo's first step, plans no statement); a page that reaches the
    /// books with it in their descriptions alone is not (their rows are ranked).
    func oneWordPage(
        _ word: String,
        kept: KeptWord,
        request: SearchRequest,
        window: PageWindow,
        hidden: [UUID],
        logger: Logger
    ) async throws -> Page? {
        let rows: [(book: BookEntry, key: String)]
        let descriptionsFollow: Bool
        var total: Int?
        if let page = kept.commonPage {
            (rows, descriptionsFollow) = (page, false)
        } else if let page = kept.entriesPage {
            (rows, descriptionsFollow, total) = (page, kept.books > kept.inFields, kept.books)
        } else {
            return nil
        }
        if descriptionsFollow && rows.count <= request.size && window.size > 0 { return nil }
        let next = rows.count > request.size ? rows[request.size - 1] : nil
        if let counted = total, !hidden.isEmpty {
            total = counted - (try await hiddenMatches(hidden, query: Self.term(word, last: true), logger: logger))
        }
        return Page(
            books: rows.prefix(request.size).map(\.book),
            next: next.map { PageCursor(value: $0.key, id: $0.book.id, sort: request.cursorSort, order: request.order.rawValue, title: "") },
            total: total,
            lookahead: rows.count > request.size ? rows[request.size].book.id : nil
        )
    }

    /// The corrected query's best matches (at most `fuzzyLimit`), best first, when nothing but the query narrows them
    /// (`CorrectedPage`: its spellings' counts and the ranking in one call planned once per session).
    func correctedMatches(_ corrected: CorrectedQuery, hidden: [UUID], logger: Logger) async throws -> [BookEntry] {
        try await books.read { client in
            let rows = try await client.run(
                CorrectedPage.self,
                values: [corrected.query, corrected.spellings, corrected.anySpellingMatches, Self.correctedCandidates, Self.fuzzyLimit, hidden],
                logger: logger
            )
            var found: [BookEntry] = []
            for try await row in rows { found.append(try BookPostgresRepository.decodeEntry(row.makeRandomAccess())) }
            return found
        }
    }
}

extension FeedPostgresRepository.PageWindow {
    init(_ request: FeedPostgresRepository.SearchRequest) {
        let offset = request.after == nil ? (request.page - 1) * request.size : 0
        self.init(
            key: request.after.map(\.value),
            id: request.after.map(\.id),
            size: offset < FeedPostgresRepository.deepestResult ? request.size + 1 : 0,
            offset: offset
        )
    }
}
