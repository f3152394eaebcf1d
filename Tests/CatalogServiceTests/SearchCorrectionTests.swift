import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import CatalogService

/// Typos: a search with fewer than `FeedPostgresRepository.fewMatches` full-text matches is followed by the matches of
/// its words corrected to the catalogue's nearest words (`search_words`, kept by a trigger on `books`).
extension CatalogServiceTests {
    @Test func aMisspelledWordIsCorrectedToTheCataloguesNearestWord() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { client in
            let daughter = try await ingestBook(client, title: "The Cartographer's Daughter", author: "Eleanor Whitfield")
            let lights = try await ingestBook(client, title: "Harbor Lights", author: "Eleanor Marsh")
            let cartography = try await ingestBook(client, title: "A History of Cartography", author: "Tom Reyes")
            _ = try await ingestBook(client, title: "Something Else", description: "Maps and harbours.")

            // One word, misspelled: nothing matches word for word; the nearest catalogue words do.
            #expect(ids(try await opds2(client, "/opds/search?q=cartogrpher")).first == daughter)
            // Every word corrected must match before any word does: the misspelled author and the title word find
            // the one book with both first, then the books with either.
            let both = ids(try await opds2(client, "/opds/search?q=whitfeld%20daughtr"))
            #expect(both.first == daughter)
            // Any corrected word: "eleanr" finds both of Eleanor's books, and "harbr eleanr" puts the one with both first.
            #expect(Set(ids(try await opds2(client, "/opds/search?q=eleanr"))) == [daughter, lights])
            #expect(ids(try await opds2(client, "/opds/search?q=harbr%20eleanr")).first == lights)
            // A word of a description only is not a catalogue word: nothing corrects "mapps" to "maps".
            #expect(ids(try await opds2(client, "/opds/search?q=maps")).count == 1)
            #expect(ids(try await opds2(client, "/opds/search?q=mapps")).isEmpty)
            // A sorted search keeps its order over the corrected matches: by title, leading articles aside.
            let sorted = ids(try await opds2(client, "/opds/search?q=cartogrphy&sort=title"))
            #expect(sorted == [daughter, cartography])

            // A book ingested later brings its words at once (the trigger), each word kept once.
            let later = try await ingestBook(client, title: "Zanzibar Nights", author: "Eleanor Whitfield")
            #expect(ids(try await opds2(client, "/opds/search?q=zanzibr")) == [later])
            let words = try await TestDatabase.query(
                "SELECT word FROM search_words WHERE word IN ('zanzibar', 'eleanor', 'whitfield', 'cartographer') ORDER BY word",
                on: url
            )
            #expect(words == ["cartographer", "eleanor", "whitfield", "zanzibar"])
        }
    }
}
