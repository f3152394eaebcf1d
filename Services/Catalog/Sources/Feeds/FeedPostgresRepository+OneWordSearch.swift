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
        var commonPage: [(book: BookDetail, key: String)]?
    }

    /// $1 the query's word, $2 whether it stands for every word it begins, $3 whether to read a common word's page,
    /// $4 `countBound`, $5 `popularCandidates`, $6 and $7 the key and id of the previous page's last book (NULL for
    /// none), $8 the page's size, $9 its offset, $10 the books the patron hid. `search_word_counts_and_page`
    /// (migration 25; a plan PostgreSQL keeps for the session) reads the word's counts, the sums of its stripes in
    /// `search_word_counts` over the range of words it stands for (the index's both ways: no text has chr(0), so a
    /// word alone is [word, word || chr(1))), and, when asked and the word is past the bound, the page of its most
    /// borrowed entries (`search_postings_page`) in the order of a one-word search (rank with `inFieldsBoost`, then
    /// id): a row a book after the entry's columns, or one row without a book. The page's ids are put in order before
    /// the books are joined (sorting the joined rows copied all their columns).
    enum KeptWordAndCommonPage: PreparedSQL {
        static let sql = """
            SELECT \(BookPostgresRepository.entryColumns), f.kept_word, f.words_kept, f.first_word, f.most_books, f.least_books,
                f.least_in_fields, f.word_in_fields, f.page_read, f.key::text
            FROM (SELECT * FROM search_word_counts_and_page($1::text, $2::boolean, $3::boolean, $4::int4, $5::int8, $6::text::real, $7::uuid,
                $8::int8, $9::int8, $10::uuid[]) f ORDER BY f.key DESC, f.book_id ASC) f
            LEFT JOIN books ON books.id = f.book_id
            ORDER BY f.key DESC, f.book_id ASC
            """
    }

    /// $1 the kept word, $2 and $3 the key and id of the previous page's last book (NULL for none), $4 the page's size,
    /// $5 its offset, $6 the books the patron hid. A page of the word's kept entries in the order of a one-word search
    /// (key, then id), read in that order from their index (`search_postings_by_key`, whose expression the key is) by
    /// `search_kept_entries_page` (migration 24, a plan PostgreSQL keeps for the session): the books after the cursor
    /// with its key, then those with lower keys. Ordered as `KeptWordAndCommonPage`'s.
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

    /// What the kept counts say of `word`, with the page of its most borrowed entries in `commonPage` when the word is
    /// in more books than are counted (`KeptWordAndCommonPage`, one round trip for both).
    func keptWord(_ word: String, prefix: Bool, commonPage: PageWindow?, hidden: [UUID], logger: Logger) async throws -> KeptWord {
        var found = KeptWord(word: word, words: 0, firstWord: nil, mostBooks: 0, books: 0, inFields: 0, wordInFields: 0)
        let window = commonPage ?? .none
        let rows = try await books.client.run(
            KeptWordAndCommonPage.self,
            values: [
                word, prefix, commonPage != nil, Self.countBound, Self.popularCandidates, window.key, window.id, window.size, window.offset,
                hidden,
            ],
            logger: logger
        )
        var page: [(book: BookDetail, key: String)] = []
        var pageRead = false
        var countsRead = false
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
                (pageRead, countsRead) = (try cell(7), true)
            }
            if let key = try cell(8, String?.self) { page.append((try BookPostgresRepository.decodeEntry(cells), key)) }
        }
        found.commonPage = pageRead ? page : nil
        return found
    }

    /// The page of a search for `word` alone when its kept rows answer it, nil otherwise. Past `countBound` matches
    /// (no total): the word's `popularCandidates` most borrowed kept entries, ranked (read with its counts:
    /// `KeptWord.commonPage`). Up to it, when the word stands for
    /// one catalogue word: the kept count is the total, and a page among the books with the word in their titles,
    /// authors, series or subjects (which rank first) is read in order from its kept entries (a prepared statement: a
    /// rare word's search, a typo's first step, no longer plans the search statement); a page that reaches the books
    /// with it in their descriptions alone is not (their rows are ranked).
    func oneWordPage(
        _ word: String,
        kept: KeptWord,
        request: SearchRequest,
        window: PageWindow,
        hidden: [UUID],
        logger: Logger
    ) async throws -> Page? {
        let rows: [(book: BookDetail, key: String)]
        let descriptionsFollow: Bool
        var total: Int?
        if let page = kept.commonPage {
            (rows, descriptionsFollow) = (page, false)
        } else if kept.words == 1, let only = kept.firstWord, kept.books <= Self.countBound {
            let statement = try await books.client.run(
                KeptEntriesPage.self,
                only,
                window.key,
                window.id,
                window.size,
                window.offset,
                hidden,
                logger: logger
            )
            (rows, descriptionsFollow, total) = (try await Self.keyedEntries(statement), kept.books > kept.inFields, kept.books)
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
