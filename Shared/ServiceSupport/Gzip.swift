import Foundation
import ZIPFoundation

/// gzip (RFC 1952) for feed bodies: ZIPFoundation's deflate (zlib) inside a gzip header and trailer.
public enum Gzip {
    /// Whether the request's `Accept-Encoding` allows gzip: `gzip` or `*` with a quality above zero.
    public static func accepted(by acceptEncoding: String?) -> Bool {
        guard let acceptEncoding else { return false }
        return acceptEncoding.split(separator: ",").contains { part in
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard pieces.first == "gzip" || pieces.first == "*" else { return false }
            let quality = pieces.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return quality > 0
        }
    }

    /// The gzip encoding of `data`, or nil if compression fails.
    public static func compress(_ data: Data) -> Data? {
        // Header: magic, deflate, no flags, no mtime, no extra flags, OS unknown.
        var output = Data([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255])
        guard
            let crc = try? Data.compress(
                size: Int64(data.count),
                bufferSize: 64 * 1024,
                provider: { position, size in data.subdata(in: Int(position)..<Int(position) + size) },
                consumer: { output.append($0) }
            )
        else { return nil }
        for value in [crc, UInt32(truncatingIfNeeded: data.count)] {
            withUnsafeBytes(of: value.littleEndian) { output.append(contentsOf: $0) }
        }
        return output
    }
}
