import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import CatalogService

/// A genre lane in title order (its default, and what the grouped feed shows of every genre) is read from an index of
/// that genre's books in title order: walking the title index of every book and skipping the other genres took 370 ms
/// for poetry at a million books (docs/PERFORMANCE.md), 0.1 ms with the index.
extension CatalogServiceTests {
    @Test func everyGenreLaneHasItsIndexInTitleOrder() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { _ in
            let definitions = try await TestDatabase.query(
                "SELECT indexdef FROM pg_indexes WHERE tablename = 'books' AND indexname LIKE 'books_genre_%_title'",
                on: url
            )
            #expect(definitions.count == Genres.all.count, "\(definitions)")
            for genre in Genres.all {
                let lane = try #require(Lane.genre(genre.slug))
                #expect(lane.defaultSort == .title)
                let name = "books_genre_\(genre.slug.replacingOccurrences(of: "-", with: "_"))_title"
                let definition = definitions.first { $0.contains(name) }
                #expect(definition?.contains("(sort_title, id)") == true, "\(name): \(definition ?? "missing")")
                #expect(definition?.contains("genres @> ARRAY['\(genre.slug)'::text]") == true, "\(name): \(definition ?? "missing")")
                #expect(definition?.contains("withdrawn_at IS NULL") == true, "\(name): \(definition ?? "missing")")
            }
        }
    }
}
