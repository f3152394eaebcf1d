import Crypto
import Foundation
import Thumbnailer

/// The cover of a book whose EPUB has none: its title and authors in white on a colour derived from them, so that
/// every client that needs a cover (Palace's OPDS 2.0 importer refuses a publication without one) has one, and the
/// same book always gets the same cover. Stored with `cover_source` 'generated', so that a real cover replaces it.
enum GeneratedCover {
    static let width = 600
    static let height = 900

    enum Failure: Error, CustomStringConvertible {
        case failed(String)
        var description: String {
            switch self {
            case .failed(let reason): reason
            }
        }
    }

    /// The JPEG of the cover for `title` by `authors`.
    static func make(title: String, authors: [String]) throws(Failure) -> Data {
        let (red, green, blue) = colour(title: title, authors: authors)
        var output: UnsafeMutableRawPointer?
        var length = 0
        var message = [CChar](repeating: 0, count: 512)
        let titleMarkup = escape(String(title.prefix(300)))
        let authorsMarkup = escape(String(authors.prefix(4).joined(separator: ", ").prefix(200)))
        let status = bm_generated_cover(
            titleMarkup,
            authorsMarkup,
            Int32(width),
            Int32(height),
            red,
            green,
            blue,
            &output,
            &length,
            &message,
            message.count
        )
        guard status == 0, let output else {
            throw .failed(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { bm_thumbnail_free(output) }
        return Data(bytes: output, count: length)
    }

    /// A dark, saturated colour (white text stays readable on it) whose hue comes from the title and authors.
    static func colour(title: String, authors: [String]) -> (UInt8, UInt8, UInt8) {
        let digest = Array(SHA256.hash(data: Data((title + "\u{1F}" + authors.joined(separator: "\u{1F}")).utf8)))
        let hue = Double(Int(digest[0]) << 8 | Int(digest[1])) / 65536
        return hsl(hue: hue, saturation: 0.55, lightness: 0.32)
    }

    static func hsl(hue: Double, saturation: Double, lightness: Double) -> (UInt8, UInt8, UInt8) {
        let chroma = (1 - abs(2 * lightness - 1)) * saturation
        let sector = hue * 6
        let x = chroma * (1 - abs(sector.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double) =
            switch Int(sector) {
            case 0: (chroma, x, 0)
            case 1: (x, chroma, 0)
            case 2: (0, chroma, x)
            case 3: (0, x, chroma)
            case 4: (x, 0, chroma)
            default: (chroma, 0, x)
            }
        let m = lightness - chroma / 2
        func byte(_ value: Double) -> UInt8 { UInt8(max(0, min(255, ((value + m) * 255).rounded()))) }
        return (byte(r), byte(g), byte(b))
    }

    /// Pango markup treats `<` and `&` as markup: a title is text.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .filter { $0 != "\0" }
    }
}
