import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import CatalogService

/// Every feed entry sends its book's description: kept in the book's row (migration 23), a page reads no TOAST for it.
/// PostgreSQL moves a row's longest values out of it until it fits in about 2 KB; a description longer than the row's
/// other long values went out first, one more index probe and read for every entry of every page.
extension CatalogServiceTests {
    @Test func aLongDescriptionStaysInItsBooksRow() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { client in
            // ~2,400 characters of varied words: its vector and its compressed text together are more than 2 KB.
            let words = (0..<400).map { "w\(String($0 * 7919 % 100_003, radix: 36))" }
            let id = try await ingestBook(client, title: "Long Described", description: words.joined(separator: " "))
            let uuid = id.replacingOccurrences(of: "urn:uuid:", with: "")
            try await TestDatabase.execute("CREATE EXTENSION IF NOT EXISTS pageinspect", on: url)
            // The row's stored bytes (pageinspect): a value moved out of the row is a TOAST pointer, whose one-byte
            // header is 0x01.
            let stored = try await TestDatabase.query(
                """
                SELECT (get_byte(attrs[a.attnum], 0) = 1)::text FROM pg_attribute a,
                    (SELECT ctid FROM books WHERE id = '\(uuid)') book,
                    LATERAL (SELECT tuple_data_split('books'::regclass, t_data, t_infomask, t_infomask2, t_bits) AS attrs
                        FROM heap_page_items(get_raw_page('books', (book.ctid::text::point)[0]::int))
                        WHERE lp = (book.ctid::text::point)[1]::int) item
                WHERE a.attrelid = 'books'::regclass AND a.attname = 'description'
                """,
                on: url
            )
            #expect(stored == ["false"], "the description is a TOAST pointer: \(stored)")
            let length = try await TestDatabase.query("SELECT length(description)::text FROM books WHERE id = '\(uuid)'", on: url)
            #expect(Int(length.first ?? "") ?? 0 > 2_000)
        }
    }
}
