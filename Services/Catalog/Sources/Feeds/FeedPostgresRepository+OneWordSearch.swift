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
    }

    /// $1 the query's word, $2 whether it stands for every word it begins. A word's counts are the sums of its stripes
    /// (summed after the range is read: through the `search_word_totals` view every word was summed first). The range is
    /// the index's both ways (no text has chr(0), so a word alone is [word, word || chr(1))): with the prefix's end in an
    /// OR, the scan ran from the word to the last word of the catalogue.
    enum KeptWordCounts: PreparedSQL {
        static let sql = """
            WITH term AS (SELECT \(FeedPostgresRepository.postingsTerm("$1")) AS word),
            kept AS (SELECT c.word, sum(c.books)::int AS books, sum(c.in_fields)::int AS in_fields FROM search_word_counts c, term
                WHERE c.word >= term.word AND c.word < term.word || CASE WHEN $2 THEN chr(1114111) ELSE chr(1) END
                GROUP BY c.word HAVING sum(c.books) > 0)
            SELECT term.word, count(kept.word)::int, min(kept.word), coalesce(max(kept.books), 0)::int, coalesce(min(kept.books), 0)::int,
                coalesce(min(kept.in_fields), 0)::int, coalesce(max(kept.in_fields) FILTER (WHERE kept.word = term.word), 0)::int
            FROM term LEFT JOIN kept ON true GROUP BY term.word
            """
    }

    /// $1 the kept word, $2 how many of its most borrowed entries are the candidates, $3 and $4 the key and id of the
    /// previous page's last book (NULL for none), $5 the page's size, $6 its offset, $7 the books the patron hid. The
    /// page's books in the order of a one-word search (rank with `inFieldsBoost`, then id), with their key as text.
    /// The page is chosen by `search_postings_page` (migrations 22 and 24), whose plan PostgreSQL keeps for the session.
    /// Its ids are put in order before the books are joined: sorting the joined rows copied all their columns.
    enum PostingsPage: PreparedSQL {
        static let sql = """
            SELECT \(BookPostgresRepository.entryColumns), page.key::text
            FROM (SELECT p.book_id, p.key FROM search_postings_page($1::text, $2::int8, $3::text::real, $4::uuid, $5::int8, $6::int8, $7::uuid[]) p
                ORDER BY p.key DESC, p.book_id ASC) page
            JOIN books ON books.id = page.book_id
            ORDER BY page.key DESC, page.book_id ASC
            """
    }

    /// $1 the kept word, $2 and $3 the key and id of the previous page's last book (NULL for none), $4 the page's size,
    /// $5 its offset, $6 the books the patron hid. A page of the word's kept entries in the order of a one-word search
    /// (key, then id), read in that order from their index (`search_postings_by_key`, whose expression the key is) by
    /// `search_kept_entries_page` (migration 24, a plan PostgreSQL keeps for the session): the books after the cursor
    /// with its key, then those with lower keys. Ordered as `PostingsPage`'s.
    enum KeptEntriesPage: PreparedSQL {
        static let sql = """
            SELECT \(BookPostgresRepository.entryColumns), page.key::text
            FROM (SELECT p.book_id, p.key FROM search_kept_entries_page($1::text, $2::text::real, $3::uuid, $4::int8, $5::int8, $6::uuid[]) p
                ORDER BY p.key DESC, p.book_id ASC) page
            JOIN books ON books.id = page.book_id
            ORDER BY page.key DESC, page.book_id ASC
            """
    }

    /// $1 words: the most books on the shelves any of them is in.
    enum KeptMostBooks: PreparedSQL {
        static let sql = """
            SELECT coalesce(max(books), 0)::int FROM (SELECT sum(c.books) AS books FROM search_word_counts c
                WHERE c.word IN (SELECT \(FeedPostgresRepository.postingsTerm("s")) FROM unnest($1::text[]) s) GROUP BY c.word) words
            """
    }

    /// $1 the books the patron hid, $2 a tsquery: how many of them it finds (a search's total leaves them out).
    enum HiddenMatches: PreparedSQL {
        static let sql = """
            SELECT count(*)::int FROM books WHERE id = ANY($1::uuid[]) AND withdrawn_at IS NULL
                AND search @@ to_tsquery('simple', immutable_unaccent($2))
            """
    }

    func hiddenMatches(_ hidden: [UUID], query: String, logger: Logger) async throws -> Int {
        try await number(HiddenMatches.self, [hidden, query], logger: logger)
    }

    /// The most books any of `words` is in (a corrected query's spellings).
    func mostBooks(of words: [String], logger: Logger) async throws -> Int {
        try await number(KeptMostBooks.self, [words], logger: logger)
    }

    /// The one number `statement` returns (0 for no row).
    private func number<Statement: PreparedSQL>(
        _ statement: Statement.Type,
        _ values: [(any PostgresThrowingDynamicTypeEncodable)?],
        logger: Logger
    ) async throws -> Int {
        // Every row read (one): a sequence left early gives its pooled connection back only once it ends.
        var number = 0
        for try await value in try await books.client.run(statement, values: values, logger: logger).decode(Int.self) { number = value }
        return number
    }

    func keptWord(_ word: String, prefix: Bool, logger: Logger) async throws -> KeptWord {
        var found = KeptWord(word: word, words: 0, firstWord: nil, mostBooks: 0, books: 0, inFields: 0, wordInFields: 0)
        // Every row read (one): a sequence left early gives its pooled connection back only once it ends.
        for try await row in try await books.client.run(KeptWordCounts.self, word, prefix, logger: logger) {
            let (kept, words, first, most, books, inFields, wordInFields) = try row.decode((String, Int, String?, Int, Int, Int, Int).self)
            found = KeptWord(
                word: kept,
                words: words,
                firstWord: first,
                mostBooks: most,
                books: books,
                inFields: inFields,
                wordInFields: wordInFields
            )
        }
        return found
    }

    /// The page of a search for `word` alone when its kept rows answer it, nil otherwise. Past `countBound` matches
    /// (no total): the word's `popularCandidates` most borrowed kept entries, ranked. Up to it, when the word stands for
    /// one catalogue word: the kept count is the total, and a page among the books with the word in their titles,
    /// authors, series or subjects (which rank first) is read in order from its kept entries (a prepared statement: a
    /// rare word's search, a typo's first step, no longer plans the search statement); a page that reaches the books
    /// with it in their descriptions alone is not (their rows are ranked).
    func oneWordPage(_ word: String, kept: KeptWord, request: SearchRequest, hidden: [UUID], logger: Logger) async throws -> Page? {
        let offset = request.after == nil ? (request.page - 1) * request.size : 0
        let size = offset < Self.deepestResult ? request.size + 1 : 0
        let (key, id) = (request.after.map(\.value), request.after.map(\.id))
        let rows: [(book: BookDetail, key: String)]
        let descriptionsFollow: Bool
        var total: Int?
        if kept.mostBooks > Self.countBound, kept.wordInFields >= Self.popularCandidates {
            let statement = try await books.client.run(
                PostingsPage.self,
                kept.word,
                Self.popularCandidates,
                key,
                id,
                size,
                offset,
                hidden,
                logger: logger
            )
            (rows, descriptionsFollow) = (try await Self.keyedEntries(statement), false)
        } else if kept.words == 1, let only = kept.firstWord, kept.books <= Self.countBound {
            let statement = try await books.client.run(KeptEntriesPage.self, only, key, id, size, offset, hidden, logger: logger)
            (rows, descriptionsFollow, total) = (try await Self.keyedEntries(statement), kept.books > kept.inFields, kept.books)
        } else {
            return nil
        }
        if descriptionsFollow && rows.count <= request.size && size > 0 { return nil }
        let next = rows.count > request.size ? rows[request.size - 1] : nil
        if let counted = total, !hidden.isEmpty {
            total = counted - (try await hiddenMatches(hidden, query: Self.term(word, last: true), logger: logger))
        }
        return Page(
            books: rows.prefix(request.size).map(\.book),
            next: next.map { PageCursor(value: $0.key, id: $0.book.id, sort: request.cursorSort, order: request.order.rawValue, title: "") },
            total: total
        )
    }

    /// Books with their search key (as text) after the entry's columns.
    static func keyedEntries(_ statement: some AsyncSequence<PostgresRow, any Error>) async throws -> [(book: BookDetail, key: String)] {
        var rows: [(book: BookDetail, key: String)] = []
        for try await row in statement {
            let cells = row.makeRandomAccess()
            rows.append((try BookPostgresRepository.decodeEntry(cells), try cells[BookPostgresRepository.entryColumnCount].decode(String.self)))
        }
        return rows
    }
}
