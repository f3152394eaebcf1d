import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import Shared

/// Book lists and their ordered books, in PostgreSQL. `owner` nil is the staff's. A list of another owner is
/// `notFound`, as a list that does not exist: nobody learns that someone else's private list exists.
struct BookListPostgresRepository: Sendable {
    let client: PostgresClient

    /// The advisory-lock space of one owner's lists ("lsts"): creations are counted one at a time.
    static let lockSpace: Int32 = 0x6C73_7473

    static let columns = """
        l.id, l.title, l.description, l.public, l.featured, (SELECT count(*)::int FROM book_list_items i WHERE i.list_id = l.id),
        l.created_at, l.updated_at
        """

    static func decode(_ row: PostgresRow) throws -> BookList {
        let (id, title, description, isPublic, featured, count, created, updated) = try row.decode(
            (UUID, String, String, Bool, Bool, Int, Date, Date).self
        )
        return BookList(
            id: id,
            title: title,
            description: description,
            isPublic: isPublic,
            featured: featured,
            bookCount: count,
            createdAt: created,
            updatedAt: updated
        )
    }

    /// The owner's lists, oldest first.
    func lists(owner: UUID?, logger: Logger) async throws -> [BookList] {
        var result: [BookList] = []
        let rows = try await client.query(
            "SELECT \(unescaped: Self.columns) FROM book_lists l WHERE owner_patron_id IS NOT DISTINCT FROM \(owner) ORDER BY created_at, id",
            logger: logger
        )
        for try await row in rows { result.append(try Self.decode(row)) }
        return result
    }

    /// Featured public staff lists, oldest first: lanes of the root and grouped feeds (a private list is staff's alone,
    /// featured or not).
    func featured(logger: Logger) async throws -> [BookList] {
        var result: [BookList] = []
        let rows = try await client.query(
            "SELECT \(unescaped: Self.columns) FROM book_lists l WHERE featured AND public AND owner_patron_id IS NULL ORDER BY created_at, id",
            logger: logger
        )
        for try await row in rows { result.append(try Self.decode(row)) }
        return result
    }

    /// One list with its books in order, and its owner (nil: staff).
    func list(_ id: UUID, logger: Logger) async throws -> (list: BookList, owner: UUID?)? {
        let rows = try await client.query(
            """
            SELECT \(unescaped: Self.columns), l.owner_patron_id,
                ARRAY(SELECT book_id FROM book_list_items i WHERE i.list_id = l.id ORDER BY position),
                ARRAY(SELECT b.title FROM book_list_items i JOIN books b ON b.id = i.book_id WHERE i.list_id = l.id ORDER BY i.position)
            FROM book_lists l WHERE l.id = \(id)
            """,
            logger: logger
        )
        for try await row in rows {
            var list = try Self.decode(row)
            let cells = row.makeRandomAccess()
            list.books = try cells[9].decode([UUID].self)
            list.titles = try cells[10].decode([String].self)
            return (list, try cells[8].decode(UUID?.self))
        }
        return nil
    }

    /// One of the owner's lists; `notFound` for any other.
    func owned(_ id: UUID, by owner: UUID?, logger: Logger) async throws -> BookList {
        guard let (list, found) = try await list(id, logger: logger), found == owner else { throw BookListError.notFound(id) }
        return list
    }

    func create(owner: UUID?, title: String, description: String, isPublic: Bool, featured: Bool, logger: Logger) async throws -> BookList {
        let id = UUID()
        try await client.transaction(logger: logger) { connection in
            let key = owner?.lowercased ?? "staff"
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.lockSpace), hashtext(\(key)))", logger: logger)
            let rows = try await connection.query(
                "SELECT count(*)::int FROM book_lists WHERE owner_patron_id IS NOT DISTINCT FROM \(owner)",
                logger: logger
            )
            for try await count in rows.decode(Int.self) where count >= BookList.listsPerOwner {
                throw BookListError.tooManyLists(BookList.listsPerOwner)
            }
            try await connection.query(
                """
                INSERT INTO book_lists (id, owner_patron_id, title, description, public, featured)
                VALUES (\(id), \(owner), \(title), \(description), \(isPublic), \(featured))
                """,
                logger: logger
            )
        }
        return try await owned(id, by: owner, logger: logger)
    }

    /// Changes what is given; `notFound` unless the owner's.
    func update(
        _ id: UUID,
        owner: UUID?,
        title: String?,
        description: String?,
        isPublic: Bool?,
        featured: Bool?,
        logger: Logger
    ) async throws -> BookList {
        let rows = try await client.query(
            """
            UPDATE book_lists SET title = coalesce(\(title), title), description = coalesce(\(description), description),
                public = coalesce(\(isPublic), public), featured = coalesce(\(featured), featured), updated_at = now()
            WHERE id = \(id) AND owner_patron_id IS NOT DISTINCT FROM \(owner) RETURNING id
            """,
            logger: logger
        )
        var found = false
        for try await _ in rows { found = true }
        guard found else { throw BookListError.notFound(id) }
        return try await owned(id, by: owner, logger: logger)
    }

    func delete(_ id: UUID, owner: UUID?, logger: Logger) async throws {
        let rows = try await client.query(
            "DELETE FROM book_lists WHERE id = \(id) AND owner_patron_id IS NOT DISTINCT FROM \(owner) RETURNING id",
            logger: logger
        )
        var found = false
        for try await _ in rows { found = true }
        guard found else { throw BookListError.notFound(id) }
    }

    /// Every list of a patron whose account was deleted.
    func deleteAll(owner: UUID, logger: Logger) async throws {
        try await client.query("DELETE FROM book_lists WHERE owner_patron_id = \(owner)", logger: logger)
    }

    /// Replaces the list's books with `books`, in that order (reordering, adding and removing at once). Every book
    /// must exist and not be withdrawn; nothing changes otherwise.
    func setBooks(_ id: UUID, owner: UUID?, books: [UUID], logger: Logger) async throws -> BookList {
        guard books.count <= BookList.booksPerList else { throw BookListError.tooManyBooks(BookList.booksPerList) }
        try await client.transaction(logger: logger) { connection in
            try await lockOwned(id, owner: owner, on: connection, logger: logger)
            try await requireBooks(books, on: connection, logger: logger)
            try await connection.query("DELETE FROM book_list_items WHERE list_id = \(id)", logger: logger)
            try await connection.query(
                """
                INSERT INTO book_list_items (list_id, book_id, position)
                SELECT \(id), book, position::int FROM unnest(\(books)::uuid[]) WITH ORDINALITY AS given(book, position)
                """,
                logger: logger
            )
            try await connection.query("UPDATE book_lists SET updated_at = now() WHERE id = \(id)", logger: logger)
        }
        return try await owned(id, by: owner, logger: logger)
    }

    /// Adds a book at the end (a book already in the list stays where it is); false when it was there.
    func addBook(_ book: UUID, to id: UUID, owner: UUID?, logger: Logger) async throws -> Bool {
        try await client.transaction(logger: logger) { connection in
            try await lockOwned(id, owner: owner, on: connection, logger: logger)
            try await requireBooks([book], on: connection, logger: logger)
            var count = 0
            for try await value in try await connection.query(
                "SELECT count(*)::int FROM book_list_items WHERE list_id = \(id)",
                logger: logger
            ).decode(Int.self) { count = value }
            let rows = try await connection.query(
                """
                INSERT INTO book_list_items (list_id, book_id, position)
                SELECT \(id), \(book), coalesce(max(position), 0) + 1 FROM book_list_items WHERE list_id = \(id)
                ON CONFLICT DO NOTHING RETURNING 1
                """,
                logger: logger
            )
            var added = false
            for try await _ in rows { added = true }
            if added && count >= BookList.booksPerList { throw BookListError.tooManyBooks(BookList.booksPerList) }
            if added { try await connection.query("UPDATE book_lists SET updated_at = now() WHERE id = \(id)", logger: logger) }
            return added
        }
    }

    func removeBook(_ book: UUID, from id: UUID, owner: UUID?, logger: Logger) async throws {
        try await client.transaction(logger: logger) { connection in
            try await lockOwned(id, owner: owner, on: connection, logger: logger)
            try await connection.query("DELETE FROM book_list_items WHERE list_id = \(id) AND book_id = \(book)", logger: logger)
            try await connection.query("UPDATE book_lists SET updated_at = now() WHERE id = \(id)", logger: logger)
        }
    }

    /// A page of the list's books that are not withdrawn or hidden, in list order after position `after`, with the
    /// position to continue from when there are more.
    func page(_ id: UUID, after: Int, size: Int, hidden: [UUID], logger: Logger) async throws -> (books: [BookEntry], next: Int?) {
        let rows = try await client.query(
            """
            SELECT \(unescaped: BookPostgresRepository.entryColumns), i.position
            FROM book_list_items i JOIN books ON books.id = i.book_id
            WHERE i.list_id = \(id) AND i.position > \(after) AND books.withdrawn_at IS NULL AND NOT (books.id = ANY(\(hidden)))
            ORDER BY i.position LIMIT \(size + 1)
            """,
            logger: logger
        )
        var result: [(BookEntry, Int)] = []
        for try await row in rows {
            let cells = row.makeRandomAccess()
            result.append((try BookPostgresRepository.decodeEntry(cells), try cells[BookPostgresRepository.entryColumnCount].decode(Int.self)))
        }
        let more = result.count > size
        let page = result.prefix(size)
        return (page.map(\.0), more ? page.last?.1 : nil)
    }

    private func lockOwned(_ id: UUID, owner: UUID?, on connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query(
            "SELECT 1 FROM book_lists WHERE id = \(id) AND owner_patron_id IS NOT DISTINCT FROM \(owner) FOR UPDATE",
            logger: logger
        )
        var found = false
        for try await _ in rows { found = true }
        guard found else { throw BookListError.notFound(id) }
    }

    private func requireBooks(_ books: [UUID], on connection: PostgresConnection, logger: Logger) async throws {
        guard !books.isEmpty else { return }
        let rows = try await connection.query(
            "SELECT ARRAY(SELECT b FROM unnest(\(books)::uuid[]) b WHERE NOT EXISTS (SELECT 1 FROM books WHERE id = b AND withdrawn_at IS NULL))",
            logger: logger
        )
        for try await missing in rows.decode([UUID].self) where !missing.isEmpty { throw BookListError.unknownBooks(missing) }
    }
}
