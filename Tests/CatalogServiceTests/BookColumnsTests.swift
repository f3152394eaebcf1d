import Foundation
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import TestSupport
import Testing

@testable import CatalogService

/// Feed pages select a book's entry columns (`BookPostgresRepository.entryColumns`), the rest of the catalog its whole
/// record: the counts that a query's own columns are read after must be the lists' own, and an entry must show what
/// the record shows of it.
extension CatalogServiceTests {
    @Test func anEntryIsTheSummarysFirstColumnsAndShowsTheSameBook() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { client in
            let id = try await ingestBook(client, title: "Columns Counted", author: "Ada Count", description: "Counted columns.")
            let uuid = try #require(UUID(uuidString: id.replacingOccurrences(of: "urn:uuid:", with: "")))
            let (entry, summary) = try await TestDatabase.withClient(url) { client, logger in
                var read: [(Int, BookRecord?, BookEntry)] = []
                let decodeRecord = { (cells: PostgresRandomAccessRow) throws -> (BookRecord?, BookEntry) in
                    let record = try BookPostgresRepository.decodeRecord(cells)
                    return (record, record.entry)
                }
                let decodeEntry = { (cells: PostgresRandomAccessRow) throws -> (BookRecord?, BookEntry) in
                    (nil, try BookPostgresRepository.decodeEntry(cells))
                }
                for (columns, decode) in [(BookPostgresRepository.entryColumns, decodeEntry), (BookPostgresRepository.recordColumns, decodeRecord)] {
                    let query = PostgresQuery(unsafeSQL: "SELECT \(columns), 'after' FROM books WHERE id = $1", binds: try binds(uuid))
                    for try await row in try await client.query(query, logger: logger) {
                        let cells = row.makeRandomAccess()
                        let (record, entry) = try decode(cells)
                        read.append((cells.count, record, entry))
                        #expect(try cells[cells.count - 1].decode(String.self) == "after")
                    }
                }
                return (read[0], read[1])
            }
            #expect(entry.0 == BookPostgresRepository.entryColumnCount + 1)
            #expect(summary.0 == BookPostgresRepository.recordColumnCount + 1)
            let shown = entry.2
            let whole = try #require(summary.1)
            #expect(shown == whole.entry)
            #expect(shown.title == "Columns Counted" && shown.description == "Counted columns.")
            #expect(whole.authorNames == ["Ada Count"] && !whole.epubSha256.isEmpty && whole.epubSize > 0)
        }
    }

    private func binds(_ id: UUID) throws -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(id)
        return bindings
    }
}
