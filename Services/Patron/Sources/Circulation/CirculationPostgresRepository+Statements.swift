import PostgresSupport

/// The statements every borrow, return, hold and offer runs, prepared once per connection (`PreparedSQL`): planning
/// them each time cost PostgreSQL more than running them.
extension CirculationPostgresRepository {
    /// $1 book; with what describes the book, for the answer to a change.
    enum LockLicense: PreparedSQL {
        static let sql = """
            SELECT copies, open_access, withdrawn, title, ARRAY(SELECT jsonb_array_elements_text(authors)), coalesce(has_cover, true), audience
            FROM licenses WHERE book_id = $1::uuid FOR UPDATE
            """
    }

    /// $1 patron, $2 book: the patron's limits and row for the book (state NULL without one), locking the patron's row
    /// so that the counts a limit is checked against cannot change under the caller: concurrent changes by one patron
    /// go one after the other. No row when the patron is gone. Always after the licence's lock, never before, so that
    /// the two lock orders cannot cross; the book's row needs no lock of its own, as every change to it holds the
    /// licence's (or, deleting the account, the patron's). A statement of its own, not joined to `LockLicense`: its
    /// snapshot is taken once the licence's lock is held, so it reads the row as the lock's previous holder left it
    /// (one statement read it as it was before the wait, and two expiry jobs both expired one loan).
    enum LockPatronAndRow: PreparedSQL {
        static let sql = """
            SELECT p.loan_limit, p.hold_limit, pb.state, pb.due_at, pb.offer_expires_at, coalesce(p.blocked_reason, p.ils_block),
                p.patron_type
            FROM patrons p LEFT JOIN patron_books pb ON pb.patron_id = p.id AND pb.book_id = $2::uuid
            WHERE p.id = $1::uuid FOR UPDATE OF p
            """
    }

    /// $1 patron.
    enum LockPatronLimits: PreparedSQL {
        static let sql = "SELECT loan_limit, hold_limit FROM patrons WHERE id = $1::uuid FOR UPDATE"
    }

    /// $1 patron, $2 the loan states; $3 a book (or NULL), $4 the states that occupy a copy.
    enum LoanCounts: PreparedSQL {
        static let sql = """
            SELECT (SELECT count(*)::int FROM patron_books WHERE patron_id = $1::uuid AND state = ANY($2::text[])),
                (SELECT count(*)::int FROM patron_books WHERE book_id = $3::uuid AND state = ANY($4::text[]))
            """
    }

    // Inserting or updating a patron's row is one statement with what goes with it (round trips less): the limits checked
    // before the write (`allowed`; no row is written when one is reached, and the caller then asks `LoanCounts` which) and
    // the loan's history after it (`history`). Parameters: $1 patron, $2 book, $3 state, $4 a loan starts (a history row,
    // the licence's count), $5 the loan's seconds, $6 the event that ended a loan (or NULL), $7 the loan limit and $8 the
    // book's copies (each NULL when not checked), $9 the loan states, $10 the states that occupy a copy, $11 the change
    // moves the book's figures (marked due, `FiguresPostgresRepository`), $12 the circulation event to record (or NULL:
    // `CirculationPostgresRepository.reportedEvents`). Every caller holds the licence's and the
    // patron's locks, so the counts stand. Each write answers a shelf stamp too (`shelf_version_seq`): taken under the
    // patron's lock, it is below the number of any reading that could miss this change, as a reading locks the patron's
    // row first (`ShelfPostgresRepository`).
    fileprivate static let allowed = """
        allowed AS (SELECT ($7::int8 IS NULL
                OR (SELECT count(*) FROM patron_books WHERE patron_id = $1::uuid AND state = ANY($9::text[])) < $7::int8)
            AND ($8::int8 IS NULL
                OR (SELECT count(*) FROM patron_books WHERE book_id = $2::uuid AND state = ANY($10::text[])) < $8::int8) AS ok)
        """
    fileprivate static let history = """
        counted AS (UPDATE licenses SET checkouts = checkouts + 1 WHERE book_id = $2::uuid AND $4::bool AND EXISTS (SELECT 1 FROM written)),
        started AS (INSERT INTO loan_history (patron_id, book_id, loaned_at) SELECT $1::uuid, $2::uuid, now() FROM written WHERE $4::bool),
        ended AS (UPDATE loan_history SET ended_at = now(), end_reason = $6::text
            WHERE patron_id = $1::uuid AND book_id = $2::uuid AND ended_at IS NULL AND $6::text IS NOT NULL AND EXISTS (SELECT 1 FROM written)),
        logged AS (INSERT INTO circulation_events (event, patron_id, book_id) SELECT $12::text, $1::uuid, $2::uuid FROM written
            WHERE $12::text IS NOT NULL)
        """

    /// A new row; parameters as above ($6 is NULL: no loan ends with a new row).
    enum InsertRow: PreparedSQL {
        static let sql = """
            WITH \(allowed),
            written AS (
                INSERT INTO patron_books (patron_id, book_id, state, hold_placed_at, loaned_at, due_at)
                SELECT $1::uuid, $2::uuid, $3::text,
                    CASE WHEN $3::text = 'waiting_for_loan' THEN clock_timestamp() END,
                    CASE WHEN $4::bool THEN now() END,
                    CASE WHEN $4::bool THEN now() + make_interval(secs => $5::float8) END
                FROM allowed WHERE ok
                RETURNING due_at, offer_expires_at, suspended_until),
            \(history),
            \(FiguresPostgresRepository.markingCTE(book: "$2", flag: "$11"))
            SELECT due_at, offer_expires_at, suspended_until, nextval('shelf_version_seq') FROM written
            """
    }

    /// The row's new state; parameters as above.
    enum UpdateRow: PreparedSQL {
        static let sql = """
            WITH \(allowed),
            written AS (
                UPDATE patron_books SET
                    state = $3::text,
                    hold_placed_at = CASE WHEN $3::text = 'waiting_for_loan' THEN clock_timestamp() ELSE hold_placed_at END,
                    offer_expires_at = CASE WHEN $3::text IN ('loan_offered', 'loan_offer_expired') THEN offer_expires_at END,
                    loaned_at = CASE WHEN $4::bool THEN now() ELSE loaned_at END,
                    due_at = CASE WHEN $4::bool THEN now() + make_interval(secs => $5::float8) ELSE due_at END,
                    suspended_until = NULL,
                    updated_at = now()
                WHERE patron_id = $1::uuid AND book_id = $2::uuid AND (SELECT ok FROM allowed)
                RETURNING due_at, offer_expires_at, suspended_until),
            \(history),
            \(FiguresPostgresRepository.markingCTE(book: "$2", flag: "$11"))
            SELECT due_at, offer_expires_at, suspended_until, nextval('shelf_version_seq') FROM written
            """
    }

    /// $1 patron, $2 book, $3 a loan ended by (or NULL), $4 the change moves the book's figures, $5 the circulation event
    /// to record (or NULL).
    enum DeleteRow: PreparedSQL {
        static let sql = """
            WITH ended AS (UPDATE loan_history SET ended_at = now(), end_reason = $3::text
                WHERE patron_id = $1::uuid AND book_id = $2::uuid AND ended_at IS NULL AND $3::text IS NOT NULL),
            written AS (DELETE FROM patron_books WHERE patron_id = $1::uuid AND book_id = $2::uuid RETURNING 1),
            logged AS (INSERT INTO circulation_events (event, patron_id, book_id) SELECT $5::text, $1::uuid, $2::uuid FROM written
                WHERE $5::text IS NOT NULL),
            \(FiguresPostgresRepository.markingCTE(book: "$2", flag: "$4"))
            SELECT nextval('shelf_version_seq') FROM written
            """
    }

    /// $1 book, $2 the offer's seconds, $3 open access, $4 copies, $5 the states that occupy a copy. The free copies
    /// are counted in the same statement: every caller holds the licence's lock. Each offer is a circulation event.
    enum PromoteHolds: PreparedSQL {
        static let sql = """
            WITH offered AS (UPDATE patron_books SET state = 'loan_offered', offer_expires_at = now() + make_interval(secs => $2::float8),
                suspended_until = NULL, updated_at = now()
            WHERE (patron_id, book_id) IN (
                SELECT patron_id, book_id FROM patron_books WHERE book_id = $1::uuid AND state = 'waiting_for_loan'
                    AND (suspended_until IS NULL OR suspended_until <= now())
                ORDER BY hold_placed_at, patron_id
                LIMIT CASE WHEN $3::bool THEN 10000 ELSE greatest(0, $4::int8 - (SELECT count(*) FROM patron_books
                    WHERE book_id = $1::uuid AND state = ANY($5::text[]))) END
                FOR UPDATE)
            RETURNING patron_id, book_id, offer_expires_at),
            logged AS (INSERT INTO circulation_events (event, patron_id, book_id) SELECT 'offer', patron_id, book_id FROM offered)
            SELECT patron_id, offer_expires_at FROM offered
            """
    }

    /// $1 book: its copies and what describes it, when it is lendable.
    enum LendableBook: PreparedSQL {
        static let sql = """
            SELECT copies, title, ARRAY(SELECT jsonb_array_elements_text(authors)), coalesce(has_cover, true)
            FROM licenses WHERE book_id = $1::uuid AND NOT withdrawn
            """
    }
}
