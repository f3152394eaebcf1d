import Crypto
import Foundation

/// Content-addressed storage of EPUB files and images (SHA-256 of the bytes).
protocol BlobStore: Sendable {
    /// Stores `data` (or `file`) and returns its hash and whether it was new.
    func put(_ data: Data) throws -> (sha256: String, created: Bool)
    func put(file: URL) throws -> (sha256: String, created: Bool)
    func url(for sha256: String) -> URL
    func remove(_ sha256: String)
}

/// Blobs as files under a directory: `ab/cdef…` by hash, written to a temporary name and renamed into place.
struct DirectoryBlobStore: BlobStore {
    let root: URL

    init(root: URL) throws {
        self.root = root
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    static func sha256(of data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    static func sha256(of file: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    func url(for sha256: String) -> URL {
        root.appendingPathComponent(String(sha256.prefix(2))).appendingPathComponent(String(sha256.dropFirst(2)))
    }

    func put(_ data: Data) throws -> (sha256: String, created: Bool) {
        let hash = Self.sha256(of: data)
        let target = url(for: hash)
        if FileManager.default.fileExists(atPath: target.path) { return (hash, false) }
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".tmp-\(UUID().uuidString)")
        try data.write(to: temporary)
        try moveIntoPlace(temporary, target)
        return (hash, true)
    }

    func put(file: URL) throws -> (sha256: String, created: Bool) {
        let hash = try Self.sha256(of: file)
        let target = url(for: hash)
        if FileManager.default.fileExists(atPath: target.path) { return (hash, false) }
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".tmp-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: file, to: temporary)
        try moveIntoPlace(temporary, target)
        return (hash, true)
    }

    private func moveIntoPlace(_ temporary: URL, _ target: URL) throws {
        if rename(temporary.path, target.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            if !FileManager.default.fileExists(atPath: target.path) { throw CocoaError(.fileWriteUnknown) }
        }
    }

    func remove(_ sha256: String) { try? FileManager.default.removeItem(at: url(for: sha256)) }
}
