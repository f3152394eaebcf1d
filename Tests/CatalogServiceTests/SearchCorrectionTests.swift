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
            // A book the patron hid is not among the corrected matches.
            let lightsID = try #require(UUID(uuidString: lights.replacingOccurrences(of: "urn:uuid:", with: "")))
            let hiddenLights = try await TestDatabase.withClient(url) { client, logger in
                let feeds = FeedPostgresRepository(books: BookPostgresRepository(client: client))
                return try await feeds.search(.init(q: "eleanr"), hidden: [lightsID], logger: logger)
            }
            #expect(hiddenLights.books.map { "urn:uuid:" + $0.id.uuidString.lowercased() } == [daughter])
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

    /// A correction in more books than a corrected search ranks, nearly all with it in their descriptions alone (its
    /// kept entries, the books with it in their fields, are too few to choose from): the list is the best of the most
    /// borrowed matches, read from the rows (`search_corrected_page`'s last statement).
    @Test func aMisspelledWordWhoseCorrectionIsMostlyInDescriptionsListsTheMostBorrowedOfItsMatches() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { client in
            let title = try await ingestBook(client, title: "Harbor Lights")
            let count = FeedPostgresRepository.correctedCandidates * 3
            try await TestDatabase.execute("UPDATE books SET popularity = 1000, checkouts = 1000 WHERE title = 'Harbor Lights'", on: url)
            try await TestDatabase.execute(
                """
                INSERT INTO books (id, title, sort_title, sort_author, authors, languages, description, epub_sha256, epub_size, copies,
                    copies_available, checkouts, popularity)
                SELECT gen_random_uuid(), 'Quay ' || g, 'quay ' || lpad(g::text, 6, '0'), b.sort_author, b.authors, b.languages,
                    'A town by the harbor' || repeat(' harbor', g % 3), md5(random()::text || g), b.epub_size, 1, 1, g, g
                FROM books b, generate_series(1, \(count)) g WHERE b.title = 'Harbor Lights'
                """,
                on: url
            )
            let listed = try await pagedIDs(client, "/opds/search?q=harbr&size=40").flatMap { $0 }
            #expect(listed.count == FeedPostgresRepository.fuzzyLimit && Set(listed).count == listed.count)
            // The book with the word in its title ranks first; among the rest, the most mentions first.
            #expect(listed.first == title)
            let ids = listed.map { $0.replacingOccurrences(of: "urn:uuid:", with: "") }.joined(separator: ",")
            let lessBorrowed = try await TestDatabase.query(
                """
                WITH popular AS (SELECT id FROM books ORDER BY popularity DESC, id DESC LIMIT \(FeedPostgresRepository.correctedCandidates))
                SELECT count(*)::text FROM books WHERE id = ANY('{\(ids)}'::uuid[]) AND id NOT IN (SELECT id FROM popular)
                """,
                on: url
            )
            #expect(lessBorrowed == ["0"], "every book listed is among the most borrowed matches")
            let mentions = try await TestDatabase.query(
                """
                SELECT (length(description) - length(replace(description, 'harbor', ''))) / 6 FROM books
                JOIN unnest('{\(ids)}'::uuid[]) WITH ORDINALITY AS l(id, n) ON books.id = l.id WHERE title <> 'Harbor Lights' ORDER BY l.n
                """,
                on: url
            )
            #expect(mentions == mentions.sorted(by: >), "ranked by how often the description has the word")
            // A book the patron hid is left out, and the list stays full: the next most borrowed match takes its place.
            let hidden = try #require(UUID(uuidString: title.replacingOccurrences(of: "urn:uuid:", with: "")))
            let signedIn = try await TestDatabase.withClient(url) { client, logger in
                try await FeedPostgresRepository(books: BookPostgresRepository(client: client))
                    .search(.init(q: "harbr", size: 100), hidden: [hidden], logger: logger)
            }
            #expect(signedIn.books.count == FeedPostgresRepository.fuzzyLimit && !signedIn.books.contains { $0.id == hidden })
        }
    }
}
