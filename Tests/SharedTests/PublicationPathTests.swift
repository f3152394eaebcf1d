import Shared
import Testing

@Suite struct PublicationPathTests {
    @Test func aLocatorHrefNamesThePathInsideTheEPUBInEveryForm() {
        #expect(PublicationPath.archivePath(of: "OEBPS/ch1.xhtml") == "OEBPS/ch1.xhtml")
        #expect(PublicationPath.archivePath(of: "OEBPS/ch1.xhtml#p3") == "OEBPS/ch1.xhtml")
        #expect(PublicationPath.archivePath(of: "/OEBPS/ch1.xhtml") == "OEBPS/ch1.xhtml")
        #expect(PublicationPath.archivePath(of: "https://lib.example/books/0f/publication/OEBPS/Caf%C3%A9%201.xhtml#x") == "OEBPS/Café 1.xhtml")
        // A relative href that merely contains the folder name is a path, not a URL.
        #expect(PublicationPath.archivePath(of: "a/publication/b.xhtml") == "a/publication/b.xhtml")
    }
}
