import Crypto
import Foundation
import Logging
import Metrics
import NIOPosix
import ServiceSupport
import Shared
import Synchronization

/// Blobs as files under a directory: `ab/cdef…` by hash. A blob is written to a temporary file in `.tmp/`, flushed
/// to disk, renamed into place and its folder flushed, so that a power loss leaves either the whole blob or none.
struct DirectoryBlobStore: BlobStore {
    let root: URL
    /// Hashes checked since start-up, forgotten wholesale past `verifiedLimit` (a check again costs only time).
    let checked = CheckedHashes()
    private static let verifiedLimit = 200_000
    var temporaryFolder: URL { root.appendingPathComponent(".tmp") }

    init(root: URL) throws {
        self.root = root
        try FileManager.default.createDirectory(at: root.appendingPathComponent(".tmp"), withIntermediateDirectories: true)
    }

    static func sha256(of data: Data) -> String { Hex.string(SHA256.hash(data: data)) }

    static func sha256(of file: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        return Hex.string(hasher.finalize())
    }

    func url(for sha256: String) -> URL {
        root.appendingPathComponent(String(sha256.prefix(2))).appendingPathComponent(String(sha256.dropFirst(2)))
    }

    func put(_ data: Data) throws -> (sha256: String, created: Bool) {
        let hash = Self.sha256(of: data)
        if isSound(hash) { return (hash, false) }
        try write(hash) { handle in try handle.write(contentsOf: data) }
        return (hash, true)
    }

    func put(file: URL) throws -> (sha256: String, created: Bool) {
        let hash = try Self.sha256(of: file)
        if isSound(hash) { return (hash, false) }
        try write(hash) { handle in
            let source = try FileHandle(forReadingFrom: file)
            defer { try? source.close() }
            while let chunk = try source.read(upToCount: 1 << 20), !chunk.isEmpty { try handle.write(contentsOf: chunk) }
        }
        return (hash, true)
    }

    func verified(_ sha256: String) async throws -> URL {
        let url = url(for: sha256)
        if checked.hashes.withLock({ $0.contains(sha256) }) { return url }
        // Hashing a large book takes a while: off the request threads, once for every request that waits for it.
        let sound = await checked.underWay.task(for: sha256) { (try? await BlockingWork.run { isSound(sha256) }) ?? false }.value
        guard sound else { throw BlobDamaged(sha256: sha256, missing: !FileManager.default.fileExists(atPath: url.path)) }
        return url
    }

    /// True when the blob exists and its bytes hash to its name (remembered); a damaged blob is removed, so that the
    /// next write of the same bytes replaces it.
    private func isSound(_ hash: String) -> Bool {
        let url = url(for: hash)
        guard FileManager.default.fileExists(atPath: url.path) else { return false }
        if checked.hashes.withLock({ $0.contains(hash) }) { return true }
        checked.hashings.withLock { $0 += 1 }
        guard (try? Self.sha256(of: url)) == hash else {
            try? FileManager.default.removeItem(at: url)
            return false
        }
        checked.hashes.withLock { set in
            if set.count >= Self.verifiedLimit { set.removeAll() }
            set.insert(hash)
        }
        return true
    }

    /// Writes a blob durably: temporary file, fsync, rename, fsync of the folder.
    private func write(_ hash: String, _ body: (FileHandle) throws -> Void) throws {
        let target = url(for: hash)
        let folder = target.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: temporaryFolder, withIntermediateDirectories: true)
        let temporary = temporaryFolder.appendingPathComponent(UUID().uuidString)
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            try body(handle)
            try handle.synchronize()
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        if rename(temporary.path, target.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            if !FileManager.default.fileExists(atPath: target.path) { throw CocoaError(.fileWriteUnknown) }
        }
        Self.synchronizeFolder(folder)
    }

    private static func synchronizeFolder(_ folder: URL) {
        let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        _ = close(descriptor)
    }

    func remove(_ sha256: String) {
        checked.hashes.withLock { _ = $0.remove(sha256) }
        try? FileManager.default.removeItem(at: url(for: sha256))
    }

    func inventory() -> (blobs: [String], temporary: [(url: URL, age: TimeInterval)]) {
        let files = FileManager.default
        var blobs: [String] = []
        var temporary: [(URL, TimeInterval)] = []
        let now = Date()
        for folder in (try? files.contentsOfDirectory(atPath: root.path)) ?? [] {
            let path = root.appendingPathComponent(folder)
            if folder == ".tmp" {
                for name in (try? files.contentsOfDirectory(atPath: path.path)) ?? [] {
                    let file = path.appendingPathComponent(name)
                    let modified = (try? files.attributesOfItem(atPath: file.path)[.modificationDate] as? Date) ?? now
                    temporary.append((file, now.timeIntervalSince(modified)))
                }
                continue
            }
            guard folder.count == 2 else { continue }
            for name in (try? files.contentsOfDirectory(atPath: path.path)) ?? [] {
                if name.hasPrefix(".tmp-") {  // the layout before `.tmp/`
                    let file = path.appendingPathComponent(name)
                    let modified = (try? files.attributesOfItem(atPath: file.path)[.modificationDate] as? Date) ?? now
                    temporary.append((file, now.timeIntervalSince(modified)))
                } else if name.count == 62 {
                    blobs.append(folder + name)
                }
            }
        }
        return (blobs, temporary)
    }
}
