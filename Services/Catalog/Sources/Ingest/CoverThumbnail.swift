import Foundation
import Thumbnailer

/// A cover scaled down to at most `maxHeight` pixels high with libvips (never scaled up), for OPDS thumbnail links.
struct CoverThumbnail: Sendable {
    static let maxHeight = 200
    /// Larger images are not decoded at all (a decompression bomb in a cover): 40 megapixels, twice a 6000×3500 photo.
    static let maxPixels: Int64 = 40_000_000

    var data: Data
    var type: String

    enum Failure: Error, CustomStringConvertible {
        case unreadable(String)
        var description: String {
            switch self {
            case .unreadable(let reason): reason
            }
        }
    }

    /// Scales `image` (any format libvips reads safely: JPEG, PNG, GIF, WebP, SVG is refused as untrusted) down.
    /// PNG when the image has transparency, JPEG otherwise; nil when the image is no higher than `maxHeight` already.
    static func make(from image: Data) throws(Failure) -> CoverThumbnail? {
        var output: UnsafeMutableRawPointer?
        var length = 0
        var format = BM_THUMBNAIL_JPEG
        var message = [CChar](repeating: 0, count: 512)
        let status = image.withUnsafeBytes { bytes in
            bm_thumbnail(bytes.baseAddress, bytes.count, Int32(maxHeight), maxPixels, &output, &length, &format, &message, message.count)
        }
        if status == 1 { return nil }
        guard status == 0, let output else {
            throw .unreadable(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { bm_thumbnail_free(output) }
        return CoverThumbnail(data: Data(bytes: output, count: length), type: format == BM_THUMBNAIL_PNG ? "image/png" : "image/jpeg")
    }
}
