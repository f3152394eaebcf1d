import Foundation

/// The raster formats a cover may be stored and served as, recognised by their bytes, never by the type a book
/// declares: an SVG (which can carry script) or anything else claiming to be an image is not a cover.
enum RasterImage {
    static let types: Set<String> = ["image/jpeg", "image/png", "image/gif", "image/webp"]

    /// The media type of `data` when it starts as a JPEG, PNG, GIF or WebP file does, else nil.
    static func type(of data: Data) -> String? {
        let bytes = [UInt8](data.prefix(12))
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return "image/gif" }
        if bytes.count == 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        return nil
    }
}
