import Foundation

/// Where catalog serves a book's resources: `{PUBLIC_URL}/books/{id}/publication/{path inside the EPUB}`, the hrefs of
/// the Readium manifest. Reading locators may name a resource by that URL or by its path inside the EPUB.
public enum PublicationPath {
    /// The folder of a book's resources, after the book's URL.
    public static let folder = "/publication/"

    /// The path inside the EPUB that a locator's href names, without fragment: `OEBPS/ch1.xhtml` for
    /// `OEBPS/ch1.xhtml#p3`, `/OEBPS/ch1.xhtml` and `https://library.example/books/{id}/publication/OEBPS/ch1.xhtml`.
    public static func archivePath(of href: String) -> String {
        var path = href.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? href
        if path.contains("://"), let range = path.range(of: folder) {
            path = String(path[range.upperBound...])
            path = path.removingPercentEncoding ?? path
        }
        while path.hasPrefix("/") { path.removeFirst() }
        return path
    }
}
