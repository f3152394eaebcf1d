import Foundation

/// Reads a PDF with poppler's tools: its document information (`pdfinfo`), its outline as the table of contents
/// (`pdftohtml -xml`) and its first page drawn as the cover (`pdftoppm`). The PDF itself is stored as uploaded.
struct PDFReader {
    struct Limits: Sendable {
        var maxPages = 10_000
    }

    /// The name of the PDF in the book's manifest and publication routes (`/books/{id}/publication/book.pdf`).
    static let href = "book.pdf"

    let limits: Limits
    /// A folder of ingest's own, removed by the caller.
    let work: URL

    func read(_ file: URL) throws -> (book: ParsedBook, cover: (data: Data, type: String)?) {
        let info = try information(file)
        guard info["Encrypted"]?.hasPrefix("no") ?? true else { throw MediaError.encryptedPDF }
        guard let pages = info["Pages"].flatMap(Int.init), pages > 0 else { throw MediaError.unreadablePDF("it has no pages") }
        guard pages <= limits.maxPages else { throw MediaError.tooManyPages(pages, limit: limits.maxPages) }
        var warnings: [String] = []
        let toc: [TOCEntry]
        do { toc = try outline(file) } catch {
            toc = []
            warnings.append("the outline could not be read: \(error)")
        }
        let cover = try? firstPage(file)
        if cover == nil { warnings.append("the first page could not be drawn as a cover") }
        let resource = PackageResource(href: Self.href, type: "application/pdf", properties: [])
        let title = info["Title"].flatMap { $0.isEmpty ? nil : $0 } ?? file.deletingPathExtension().lastPathComponent
        let authors = info["Author"].map(AudiobookPackager.names) ?? []
        let keywords =
            info["Keywords"].map { $0.split(whereSeparator: { $0 == "," || $0 == ";" }).map { $0.trimmingCharacters(in: .whitespaces) } } ?? []
        var book = ParsedBook(
            format: .pdf,
            title: title,
            contributors: authors.map { Contributor(name: $0, role: "aut") },
            published: info["CreationDate"].map { String($0.prefix(10)) },
            description: info["Subject"].flatMap { $0.isEmpty ? nil : String($0.prefix(4_000)) },
            subjects: keywords.filter { !$0.isEmpty }.map { String($0.prefix(200)) },
            readingOrder: [resource],
            toc: toc,
            cover: cover.map { (data: $0, type: "image/jpeg") },
            koreaderDigest: try KOReaderDigest.of(file: file),
            warnings: warnings
        )
        book.pages = pages
        return (book, book.cover)
    }

    /// `pdfinfo`'s fields (`Title`, `Author`, `Pages`, `Encrypted`, ...), dates in ISO 8601.
    private func information(_ file: URL) throws -> [String: String] {
        let output: Data
        do { output = try ExternalTool.run("pdfinfo", ["-enc", "UTF-8", "-isodates", file.path], timeout: 30) } catch {
            throw MediaError.unreadablePDF("\(error)")
        }
        var fields: [String: String] = [:]
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    /// The outline, nested as the PDF nests it; each entry points at its page (`book.pdf#page=N`).
    private func outline(_ file: URL) throws -> [TOCEntry] {
        let output = try ExternalTool.run("pdftohtml", ["-xml", "-i", "-stdout", "-q", "-f", "1", "-l", "1", file.path], timeout: 60)
        guard let outline = try XMLNode.parse(output, path: "outline").child("outline") else { return [] }
        func entries(_ node: XMLNode) -> [TOCEntry] {
            var list: [TOCEntry] = []
            for child in node.children {
                if child.name == "item", let page = child["page"].flatMap(Int.init) {
                    list.append(TOCEntry(title: String(child.allText.prefix(300)), href: "\(Self.href)#page=\(page)", children: []))
                } else if child.name == "outline", !list.isEmpty {
                    list[list.count - 1].children += entries(child)
                }
            }
            return list
        }
        return entries(outline)
    }

    /// The first page as a JPEG 600 pixels on its longer side.
    private func firstPage(_ file: URL) throws -> Data {
        try Self.render(file, page: 1, longerSide: 600, format: "jpeg", in: work)
    }

    /// Page `page` drawn by `pdftoppm` (which writes only to a file here) at `longerSide` pixels, as PNG or JPEG bytes.
    static func render(_ file: URL, page: Int, longerSide: Int, format: String, in folder: URL) throws -> Data {
        let root = folder.appendingPathComponent("page-\(UUID().uuidString)")
        let written = root.appendingPathExtension(format == "png" ? "png" : "jpg")
        defer { try? FileManager.default.removeItem(at: written) }
        _ = try ExternalTool.run(
            "pdftoppm",
            ["-\(format)", "-f", "\(page)", "-l", "\(page)", "-scale-to", "\(longerSide)", "-singlefile", file.path, root.path],
            timeout: 60
        )
        return try Data(contentsOf: written)
    }
}
