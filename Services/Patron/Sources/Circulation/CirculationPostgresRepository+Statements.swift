import PostgresSupport

/// The statements every borrow, return, hold and offer runs, prepared once per connection (`PreparedSQL`): planning
/// them each time cost PostgreSQL more than running them.
extension CirculationPostgresRepository {
    /// $1 book.
    enum LockLicense: PreparedSQL {
        static let sql = "SELECT copies, open_access, withdrawn FROM licenses WHERE book_id = $1::uuid FOR UPDATE"
    }

    /// $1 patron, $2 book.
    enum LockRow: PreparedSQL {
        static let sql = "SELECT state, due_at, offer_expires_at FROM patron_books WHERE patron_id = $1::uuid AND book_id = $2::uuid FOR UPDATE"
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

    /// $1 patron, $2 book.
    enum StartLoanHistory: PreparedSQL {
        static let sql = """
            WITH counted AS (UPDATE licenses SET checkouts = checkouts + 1 WHERE book_id = $2::uuid)
            INSERT INTO loan_history (patron_id, book_id, loaned_at) VALUES ($1::uuid, $2::uuid, now())
            """
    }

    /// $1 patron, $2 book, $3 the event that ended the loan.
    enum EndLoanHistory: PreparedSQL {
        static let sql = """
            UPDATE loan_history SET ended_at = now(), end_reason = $3::text
            WHERE patron_id = $1::uuid AND book_id = $2::uuid AND ended_at IS NULL
            """
    }

    /// $1 book, $2 the offer's seconds, $3 open access, $4 copies, $5 the states that occupy a copy. The free copies
    /// are counted in the same statement: every caller holds the licence's lock.
    enum PromoteHolds: PreparedSQL {
        static let sql = """
            UPDATE patron_books SET state = 'loan_offered', offer_expires_at = now() + make_interval(secs => $2::float8),
                suspended_until = NULL, updated_at = now()
            WHERE (patron_id, book_id) IN (
                SELECT patron_id, book_id FROM patron_books WHERE book_id = $1::uuid AND state = 'waiting_for_loan'
                    AND (suspended_until IS NULL OR suspended_until <= now())
                ORDER BY hold_placed_at, patron_id
                LIMIT CASE WHEN $3::bool THEN 10000 ELSE greatest(0, $4::int8 - (SELECT count(*) FROM patron_books
                    WHERE book_id = $1::uuid AND state = ANY($5::text[]))) END
                FOR UPDATE)
            RETURNING patron_id, offer_expires_at
            """
    }

    /// $1 book: its copies when it is lendable.
    enum LendableCopies: PreparedSQL {
        static let sql = "SELECT copies FROM licenses WHERE book_id = $1::uuid AND NOT withdrawn"
    }
}
