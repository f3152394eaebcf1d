import Foundation
import SystemZlib

/// gzip (RFC 1952) for feed bodies and the web app's files, by zlib.
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

    /// How hard to compress: `standard` (zlib's default, level 6) for what is compressed once and sent many times;
    /// `fast` (level 1: about a third of the time for a feed page, a sixth larger) for a page made for one request.
    public enum Level: Int32, Sendable {
        case standard = -1
        case fast = 1
    }

    /// The gzip encoding of `data`, or nil if compression fails.
    public static func compress(_ data: Data, level: Level = .standard) -> Data? {
        var stream = z_stream()
        // 15 + 16: zlib's largest window, inside a gzip header and trailer.
        guard
            deflateInit2_(&stream, level.rawValue, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
                == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        var output = Data(count: Int(deflateBound(&stream, uLong(data.count))))
        let status = data.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        output.count = Int(stream.total_out)
        return output
    }
}
