import Crypto
import Foundation
import NIOCore
import Shared

/// A blob's name: the SHA-256 of its bytes, in lower-case hex.
enum BlobHash {
    static func of(_ data: Data) -> String { Hex.string(SHA256.hash(data: data)) }

    /// Read a megabyte at a time (call it off Swift's cooperative threads).
    static func of(file: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        return Hex.string(hasher.finalize())
    }

    /// A hash taken as bytes arrive.
    struct Hasher {
        private var sha = SHA256()
        mutating func update(_ buffer: ByteBuffer) { buffer.withUnsafeReadableBytes { sha.update(bufferPointer: $0) } }
        func finalize() -> String { Hex.string(sha.finalize()) }
    }

    /// A blob's path below a folder or key prefix: `ab/cdef…`.
    static func path(_ sha256: String) -> String { "\(sha256.prefix(2))/\(sha256.dropFirst(2))" }

    /// The hash a `path(_:)` names, or nil when it names none.
    static func named(_ path: Substring) -> String? {
        let parts = path.split(separator: "/")
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 62 else { return nil }
        let hash = String(parts[0] + parts[1])
        return hash.allSatisfy { $0.isHexDigit && !$0.isUppercase } ? hash : nil
    }
}
