import Foundation
import Shared
import Testing

/// The public paths, written whole: the text before an id, the id in lower case, the text after it.
@Suite struct PublicRouteTests {
    @Test func eachRouteHasItsPathAndItsURLUnderTheBase() {
        let id = UUID(uuidString: "2DE8BB49-A4F1-435D-8ACC-3D6367BE7B5E")!
        let book = "2de8bb49-a4f1-435d-8acc-3d6367be7b5e"
        let expected: [(PublicRoute, String)] = [
            (.catalogRoot, "/opds"), (.groups, "/opds/groups"), (.lane("new"), "/opds/lanes/new"),
            (.series("Dune%20Chronicles"), "/opds/series/Dune%20Chronicles"), (.author("Frank%20Herbert"), "/opds/authors/Frank%20Herbert"),
            (.search, "/opds/search"), (.recommended, "/opds/recommended"), (.entry(id), "/opds/books/\(book)"),
            (.related(id), "/opds/books/\(book)/related"), (.shelfFeed, "/opds/shelf"), (.listFeed(id), "/opds/lists/\(book)"),
            (.publication(id), "/books/\(book)/publication/"), (.fulfill(id), "/books/\(book)/fulfill"), (.cover(id), "/books/\(book)/cover"),
            (.manifest(id), "/books/\(book)/manifest.json"), (.authDocument, "/auth/document"), (.token, "/auth/token"),
            (.refresh, "/auth/refresh"), (.signup, "/auth/signup"), (.me, "/me"), (.password, "/me/password"),
            (.revokeAllSessions, "/me/sessions/revoke-all"), (.myBooks, "/me/books"), (.myBook(id), "/me/books/\(book)"),
            (.circulation(id, .returnLoan), "/me/books/\(book)/return"), (.circulation(id, .borrow), "/me/books/\(book)/borrow"),
            (.position(id), "/me/books/\(book)/position"), (.annotations(id), "/me/annotations/\(book)"), (.annotations(nil), "/me/annotations/"),
        ]
        for (route, path) in expected {
            #expect(route.path == path)
            #expect(route.url("https://library.example/ébooks") == "https://library.example/ébooks" + path)
        }
    }

    /// The same definitions give the router its paths: `.key` writes the placeholder the handler reads.
    @Test func aRouteWithKeysIsTheRoutersPath() {
        let expected: [(PublicRoute, String)] = [
            (.lane(.key), "/opds/lanes/:lane"), (.entry(.key), "/opds/books/:id"), (.publication(.key, resource: .key), "/books/:id/publication/**"),
            (.circulation(.key, .returnLoan), "/me/books/:id/return"), (.listBook(.staff, .key, book: .key), "/admin/lists/:id/books/:book"),
            (.annotation(.key), "/me/annotations/:id"),
        ]
        for (route, path) in expected { #expect(route.path == path) }
        #expect(InternalRoute.loanCheck(patron: .key, book: .key).path == "/internal/patrons/:patron/loans/:id")
    }

    /// A book's file and its publication's resources (an audiobook's tracks) travel as downloads in the gateway, bounded
    /// per patron; pages, covers and manifests do not.
    @Test func booksContentIsTheFileAndThePublicationsResources() {
        let id = UUID()
        for path in [PublicRoute.fulfill(id).path, PublicRoute.publication(id).path + "track-001.m4a", PublicRoute.publication(id).path + "book.pdf"]
        {
            #expect(PublicService.isBookContent(path), "\(path)")
        }
        for path in [PublicRoute.cover(id).path, PublicRoute.manifest(id).path, PublicRoute.entry(id).path, "/opds/books/\(id)/publication/x"] {
            #expect(!PublicService.isBookContent(path), "\(path)")
        }
    }
}
