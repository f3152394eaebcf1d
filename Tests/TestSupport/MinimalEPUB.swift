import Foundation
import ZIPFoundation

/// A small valid EPUB 3 written for a test: a title, an identifier, optional ISBN, cover and extra package metadata.
public enum MinimalEPUB {
    public struct Cover: Sendable {
        public var name: String
        public var type: String
        public var data: Data

        public init(name: String, type: String, data: Data) {
            self.name = name
            self.type = type
            self.data = data
        }
    }

    public static func write(
        title: String,
        identifier: String = UUID().uuidString,
        isbn: String? = nil,
        author: String? = nil,
        cover: Cover? = nil,
        metadata: String = "",
        extraEntries: [(String, Data)] = [],
        epub2: Bool = false
    ) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("minimal-\(UUID().uuidString).epub")
        let archive = try Archive(url: file, accessMode: .create)
        let isbnElement = isbn.map { "<dc:identifier>urn:isbn:\($0)</dc:identifier>" } ?? ""
        func escaped(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        }
        let authorElement = author.map { "<dc:creator>\(escaped($0))</dc:creator>" } ?? ""
        let coverItem = cover.map { #"<item id="c" href="\#($0.name)" media-type="\#($0.type)" properties="cover-image"/>"# } ?? ""
        // EPUB 2 (as calibre writes it): version 2.0, the opf namespace for `opf:role` and friends, an NCX instead of a nav.
        let modified = epub2 ? "" : #"<meta property="dcterms:modified">2024-01-01T00:00:00Z</meta>"#
        let navigation =
            epub2
            ? #"<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>"#
            : #"<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>"#
        let opf = """
            <?xml version="1.0" encoding="UTF-8"?>
            <package xmlns="http://www.idpf.org/2007/opf" version="\(epub2 ? "2.0" : "3.0")" unique-identifier="id">
              <metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf"><dc:identifier id="id">\(identifier)</dc:identifier>\(isbnElement)
                <dc:title>\(escaped(title))</dc:title>\(authorElement)<dc:language>en</dc:language>
                \(modified)\(metadata)</metadata>
              <manifest>\(coverItem)
                \(navigation)
                <item id="t" href="text.xhtml" media-type="application/xhtml+xml"/></manifest>
              <spine\(epub2 ? #" toc="ncx""# : "")><itemref idref="t"/></spine>
            </package>
            """
        var entries: [(String, Data)] = [
            ("mimetype", Data("application/epub+zip".utf8)),
            (
                "META-INF/container.xml",
                Data(
                    """
                    <?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
                    <rootfiles><rootfile full-path="package.opf" media-type="application/oebps-package+xml"/></rootfiles></container>
                    """.utf8
                )
            ),
            ("package.opf", Data(opf.utf8)),
            (
                "nav.xhtml",
                Data(
                    """
                    <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Contents</title></head>
                    <body><nav epub:type="toc"><ol><li><a href="text.xhtml">Text</a></li></ol></nav></body></html>
                    """.utf8
                )
            ),
            (
                "text.xhtml",
                Data("<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>Text</title></head><body><p>Hello</p></body></html>".utf8)
            ),
        ]
        if epub2 {
            entries.append(
                (
                    "toc.ncx",
                    Data(
                        """
                        <?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><head/><docTitle><text>\(escaped(title))</text></docTitle>
                        <navMap><navPoint id="p1" playOrder="1"><navLabel><text>Text</text></navLabel><content src="text.xhtml"/></navPoint></navMap></ncx>
                        """.utf8
                    )
                )
            )
        }
        if let cover { entries.append((cover.name, cover.data)) }
        entries += extraEntries
        for (path, data) in entries {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .none) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return file
    }
}
