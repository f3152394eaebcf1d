import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import Shared

/// The mail queue and each patron's mail settings. A message is queued in the transaction that records its
/// notification (one row per notification's key, so replicas and retries queue it once), and sent by `MailSender`
/// under the row's lock.
struct MailPostgresRepository: Sendable {
    let client: PostgresClient

    /// Queues the mail of a notification just recorded, when the patron has a verified address the relay has not
    /// refused and has not turned this kind off. `key` is the notification's own unique key.
    static func queue(kind: String, patronID: UUID, bookID: UUID, key: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO mail_messages (id, patron_id, kind, book_id, dedupe_key, address, deadline)
            SELECT \(UUID()), p.id, \(kind), \(bookID), \(key), p.email,
                (SELECT CASE WHEN b.state = 'loan_offered' THEN b.offer_expires_at ELSE b.due_at END
                    FROM patron_books b WHERE b.patron_id = p.id AND b.book_id = \(bookID))
            FROM patrons p
            WHERE p.id = \(patronID) AND p.email IS NOT NULL AND p.email_verified = p.email
                AND p.email_refused IS DISTINCT FROM p.email AND NOT (\(kind) = ANY(p.mail_off))
            ON CONFLICT (dedupe_key) DO NOTHING
            """,
            logger: logger
        )
    }

    struct Settings: Codable, Sendable {
        var email: String?
        var verified: Bool
        /// Why the relay refused the address, when it did.
        var refused: String?
        var language: String
        var kinds: [String: Bool]
    }

    func settings(patronID: UUID, logger: Logger) async throws -> Settings? {
        let rows = try await client.query(
            """
            SELECT email, email_verified, email_refused, email_refused_reason, mail_language, mail_off FROM patrons WHERE id = \(patronID)
            """,
            logger: logger
        )
        for try await (email, verified, refused, reason, language, off) in rows.decode((String?, String?, String?, String?, String, [String]).self) {
            return Settings(
                email: email,
                verified: email != nil && verified == email,
                refused: email != nil && refused == email ? reason ?? "refused" : nil,
                language: language,
                kinds: Dictionary(uniqueKeysWithValues: MailTemplates.optional.map { ($0, !off.contains($0)) })
            )
        }
        return nil
    }

    /// Turns the kinds named in `kinds` on or off (the others keep their setting) and sets the language, in one statement.
    func update(patronID: UUID, kinds: [String: Bool], language: String?, logger: Logger) async throws {
        let turnedOn = kinds.filter { $0.value }.map(\.key)
        let turnedOff = kinds.filter { !$0.value }.map(\.key)
        try await client.query(
            """
            UPDATE patrons SET
                mail_off = ARRAY(SELECT DISTINCT kind FROM unnest(mail_off || \(turnedOff)::text[]) kind WHERE NOT kind = ANY(\(turnedOn)::text[])),
                mail_language = coalesce(\(language), mail_language)
            WHERE id = \(patronID)
            """,
            logger: logger
        )
    }

    enum VerificationRequest: Equatable {
        case queued
        case noAddress
        case alreadyVerified
    }

    /// Queues a verification message to the patron's current address (at most one an hour for one address).
    func requestVerification(patronID: UUID, logger: Logger) async throws -> VerificationRequest {
        let hour = Int(Date().timeIntervalSince1970 / 3600)
        let rows = try await client.query(
            """
            WITH patron AS (SELECT id, email, email_verified FROM patrons WHERE id = \(patronID)),
            queued AS (
                INSERT INTO mail_messages (id, patron_id, kind, dedupe_key, address)
                SELECT \(UUID()), id, \(MailTemplates.verify), \(MailTemplates.verify) || ':' || id || ':' || email || ':' || \(hour), email
                FROM patron WHERE email IS NOT NULL AND email_verified IS DISTINCT FROM email
                ON CONFLICT (dedupe_key) DO NOTHING
            )
            SELECT email, email_verified FROM patron
            """,
            logger: logger
        )
        for try await (email, verified) in rows.decode((String?, String?).self) {
            guard let email else { return .noAddress }
            return verified == email ? .alreadyVerified : .queued
        }
        return .noAddress
    }

    /// Marks the address in `token` verified, when it is still the patron's. Throws 409 `email-taken` when another
    /// account confirmed the address first: said only to whoever holds the mailbox.
    func verify(patronID: UUID, address: String, logger: Logger) async throws -> Bool {
        do {
            let rows = try await client.query(
                """
                UPDATE patrons SET email_verified = email, email_refused = NULL, email_refused_reason = NULL
                WHERE id = \(patronID) AND email = \(address) RETURNING 1
                """,
                logger: logger
            )
            for try await _ in rows { return true }
            return false
        } catch let error as PSQLError where error.isUniqueViolation {
            throw Problem.conflict("email-taken", "This address is already confirmed on another library account")
        }
    }

    func unsubscribe(patronID: UUID, kind: String, logger: Logger) async throws {
        try await client.query(
            "UPDATE patrons SET mail_off = array_append(mail_off, \(kind)) WHERE id = \(patronID) AND NOT (\(kind) = ANY(mail_off))",
            logger: logger
        )
    }

    /// A message due to be sent, with what its text needs.
    struct Due: Sendable {
        var id: UUID
        var patronID: UUID
        var kind: String
        var bookID: UUID?
        var address: String
        var deadline: Date?
        var attempts: Int
        var createdAt: Date
        var title: String?
        var language: String
        /// False when the patron's address changed or they turned this kind off since it was queued.
        var stillWanted: Bool
    }

    /// Claims up to `limit` due messages for the length of `send`'s transaction (other replicas skip them), and
    /// records what became of each.
    func sendDue(limit: Int, logger: Logger, _ send: @escaping @Sendable (Due) async -> SMTPRelay.Outcome) async throws -> Int {
        try await client.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                SELECT m.id, m.patron_id, m.kind, m.book_id, m.address, m.deadline, m.attempts, m.created_at, l.title, p.mail_language,
                    (p.email = m.address AND (m.kind = \(MailTemplates.verify) OR (p.email_verified = m.address AND NOT (m.kind = ANY(p.mail_off))))
                        AND p.email_refused IS DISTINCT FROM m.address)
                FROM mail_messages m JOIN patrons p ON p.id = m.patron_id LEFT JOIN licenses l ON l.book_id = m.book_id
                WHERE m.status = 'waiting' AND m.next_attempt_at <= now()
                ORDER BY m.next_attempt_at LIMIT \(limit) FOR UPDATE OF m SKIP LOCKED
                """,
                logger: logger
            )
            var due: [Due] = []
            for try await (id, patron, kind, book, address, deadline, attempts, created, title, language, wanted) in rows.decode(
                (UUID, UUID, String, UUID?, String, Date?, Int, Date, String?, String, Bool?).self
            ) {
                due.append(
                    Due(
                        id: id,
                        patronID: patron,
                        kind: kind,
                        bookID: book,
                        address: address,
                        deadline: deadline,
                        attempts: attempts,
                        createdAt: created,
                        title: title,
                        language: language,
                        stillWanted: wanted ?? false
                    )
                )
            }
            for message in due {
                guard message.stillWanted else {
                    try await connection.query(
                        "UPDATE mail_messages SET status = 'failed', last_error = 'no longer wanted: the address changed or the patron turned this kind off' WHERE id = \(message.id)",
                        logger: logger
                    )
                    continue
                }
                switch await send(message) {
                case .sent:
                    try await connection.query(
                        "UPDATE mail_messages SET status = 'sent', sent_at = now(), attempts = attempts + 1, last_error = NULL WHERE id = \(message.id)",
                        logger: logger
                    )
                case .refused(let reason):
                    try await connection.query(
                        "UPDATE mail_messages SET status = 'failed', attempts = attempts + 1, last_error = \(reason) WHERE id = \(message.id)",
                        logger: logger
                    )
                    try await connection.query(
                        """
                        UPDATE patrons SET email_refused = \(message.address), email_refused_reason = \(reason)
                        WHERE id = \(message.patronID) AND email = \(message.address)
                        """,
                        logger: logger
                    )
                case .unavailable(let reason):
                    // Backoff: 30 s, 1 min, 2 min ... at most an hour between tries; given up after three days.
                    let wait = min(3600, 30 * Int(pow(2, Double(min(message.attempts, 7)))))
                    let givenUp = message.createdAt.addingTimeInterval(3 * 86_400) < Date()
                    try await connection.query(
                        """
                        UPDATE mail_messages SET attempts = attempts + 1, last_error = \(reason),
                            status = CASE WHEN \(givenUp) THEN 'failed' ELSE 'waiting' END,
                            next_attempt_at = now() + make_interval(secs => \(wait))
                        WHERE id = \(message.id)
                        """,
                        logger: logger
                    )
                }
            }
            return due.count
        }
    }

    struct QueueEntry: Codable, Sendable {
        var id: UUID
        var kind: String
        var address: String
        var status: String
        var attempts: Int
        var lastError: String?
        var createdAt: Date
        var sentAt: Date?
        var nextAttemptAt: Date?
    }

    struct Queue: Codable, Sendable {
        var counts: [String: Int]
        var messages: [QueueEntry]
    }

    /// The console's view: how many messages are sent, waiting and failed, and the latest ones (`status` to filter).
    func queue(status: String?, limit: Int, logger: Logger) async throws -> Queue {
        var counts = ["sent": 0, "waiting": 0, "failed": 0]
        for try await (state, count) in try await client.query("SELECT status, count(*)::int FROM mail_messages GROUP BY status", logger: logger)
            .decode((String, Int).self)
        {
            counts[state] = count
        }
        let rows = try await client.query(
            """
            SELECT id, kind, address, status, attempts, last_error, created_at, sent_at, next_attempt_at FROM mail_messages
            WHERE \(status)::text IS NULL OR status = \(status) ORDER BY created_at DESC LIMIT \(limit)
            """,
            logger: logger
        )
        var messages: [QueueEntry] = []
        for try await (id, kind, address, state, attempts, error, created, sent, next) in rows.decode(
            (UUID, String, String, String, Int, String?, Date, Date?, Date).self
        ) {
            messages.append(
                QueueEntry(
                    id: id,
                    kind: kind,
                    address: address,
                    status: state,
                    attempts: attempts,
                    lastError: error,
                    createdAt: created,
                    sentAt: sent,
                    nextAttemptAt: state == "waiting" ? next : nil
                )
            )
        }
        return Queue(counts: counts, messages: messages)
    }
}
