import Foundation
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import TestSupport
import Testing

@testable import CatalogService

/// Feed pages select a book's entry columns (`BookPostgresRepository.entryColumns`), the rest of the catalog its whole
/// summary: the counts that a query's own columns are read after must be the lists' own, and an entry must show what
/// the summary shows of it.
extension CatalogServiceTests {
    @Test func anEntryIsTheSummarysFirstColumnsAndShowsTheSameBook() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { client in
            let id = try await ingestBook(client, title: "Columns Counted", author: "Ada Count", description: "Counted columns.")
            let uuid = try #require(UUID(uuidString: id.replacingOccurrences(of: "urn:uuid:", with: "")))
            let (entry, summary) = try await TestDatabase.withClient(url) { client, logger in
                var read: [(Int, BookDetail)] = []
                for (columns, decode) in [
                    (BookPostgresRepository.entryColumns, BookPostgresRepository.decodeEntry),
                    (BookPostgresRepository.summaryColumns, BookPostgresRepository.decodeSummary),
                ] {
                    let query = PostgresQuery(unsafeSQL: "SELECT \(columns), 'after' FROM books WHERE id = $1", binds: try binds(uuid))
                    for try await row in try await client.query(query, logger: logger) {
                        let cells = row.makeRandomAccess()
                        read.append((cells.count, try decode(cells)))
                        #expect(try cells[cells.count - 1].decode(String.self) == "after")
                    }
                }
                return (read[0], read[1])
            }
            #expect(entry.0 == BookPostgresRepository.entryColumnCount + 1)
            #expect(summary.0 == BookPostgresRepository.summaryColumnCount + 1)
            let (shown, whole) = (entry.1, summary.1)
            #expect(shown.id == whole.id && shown.title == whole.title && shown.contributors == whole.contributors)
            #expect(shown.description == whole.description && shown.languages == whole.languages && shown.updatedAt == whole.updatedAt)
            #expect(shown.copies == whole.copies && shown.copiesAvailable == whole.copiesAvailable && shown.hasCover == whole.hasCover)
            #expect(whole.authors == ["Ada Count"] && !whole.epubSha256.isEmpty && whole.epubSize > 0)
        }
    }

    private func binds(_ id: UUID) throws -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(id)
        return bindings
    }
}
