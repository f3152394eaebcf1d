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

    func url(for sha256: String) -> URL { root.appendingPathComponent(BlobHash.path(sha256)) }

    func put(_ data: Data) async throws -> (sha256: String, created: Bool) {
        try await BlockingWork.run { try putNow(data) }
    }

    func put(file: URL) async throws -> (sha256: String, created: Bool) {
        try await BlockingWork.run { try putNow(file: file) }
    }

    func putNow(_ data: Data) throws -> (sha256: String, created: Bool) {
        let hash = BlobHash.of(data)
        if isSound(hash) { return (hash, false) }
        try write(hash) { handle in try handle.write(contentsOf: data) }
        return (hash, true)
    }

    func putNow(file: URL) throws -> (sha256: String, created: Bool) {
        let hash = try BlobHash.of(file: file)
        if isSound(hash) { return (hash, false) }
        try write(hash) { handle in
            let source = try FileHandle(forReadingFrom: file)
            defer { try? source.close() }
            while let chunk = try source.read(upToCount: 1 << 20), !chunk.isEmpty { try handle.write(contentsOf: chunk) }
        }
        return (hash, true)
    }

    func verified(_ sha256: String) async throws -> URL {
        if checked.hashes.withLock({ $0.contains(sha256) }) { return url(for: sha256) }
        let existed = FileManager.default.fileExists(atPath: url(for: sha256).path)
        guard let url = await soundCopy(sha256) else { throw BlobDamaged(sha256: sha256, missing: !existed) }
        return url
    }

    /// The blob's file when it is here and sound (checked once per process), or nil.
    func soundCopy(_ sha256: String) async -> URL? {
        let url = url(for: sha256)
        if checked.hashes.withLock({ $0.contains(sha256) }) { return url }
        // Hashing a large book takes a while: off the request threads, once for every request that waits for it.
        let sound = await checked.underWay.task(for: sha256) { (try? await BlockingWork.run { isSound(sha256) }) ?? false }.value
        return sound ? url : nil
    }

    /// A new temporary file's name, for a blob on its way in (`adopt`).
    func temporaryFile() throws -> URL {
        try FileManager.default.createDirectory(at: temporaryFolder, withIntermediateDirectories: true)
        return temporaryFolder.appendingPathComponent(UUID().uuidString)
    }

    /// Moves a temporary file whose bytes hash to `sha256` (the caller hashed them on their way in) into place.
    func adopt(_ temporary: URL, as sha256: String) throws {
        let target = url(for: sha256)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard rename(temporary.path, target.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown)
        }
        remember(sha256)
    }

    /// True when the blob exists and its bytes hash to its name (remembered); a damaged blob is removed, so that the
    /// next write of the same bytes replaces it.
    private func isSound(_ hash: String) -> Bool {
        let url = url(for: hash)
        guard FileManager.default.fileExists(atPath: url.path) else { return false }
        if checked.hashes.withLock({ $0.contains(hash) }) { return true }
        checked.hashings.withLock { $0 += 1 }
        guard (try? BlobHash.of(file: url)) == hash else {
            try? FileManager.default.removeItem(at: url)
            return false
        }
        remember(hash)
        return true
    }

    private func remember(_ hash: String) {
        checked.hashes.withLock { set in
            if set.count >= Self.verifiedLimit { set.removeAll() }
            set.insert(hash)
        }
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

    func remove(_ sha256: String) async throws {
        checked.hashes.withLock { _ = $0.remove(sha256) }
        try? FileManager.default.removeItem(at: url(for: sha256))
    }

    func forEachStoredBatch(_ body: ([String]) async throws -> Void) async throws {
        let files = FileManager.default
        for folder in (try? files.contentsOfDirectory(atPath: root.path)) ?? [] where folder.count == 2 {
            let names = (try? files.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? []
            let hashes = names.compactMap { BlobHash.named("\(folder)/\($0)"[...]) }
            if !hashes.isEmpty { try await body(hashes) }
        }
    }

    func removeAbandonedWrites(olderThan age: TimeInterval) async throws -> Int {
        var removed = 0
        for file in temporaryFiles() where file.age > age {
            if (try? FileManager.default.removeItem(at: file.url)) != nil { removed += 1 }
        }
        return removed
    }

    /// The temporary files of writes under way or cut off, with their age.
    func temporaryFiles() -> [(url: URL, age: TimeInterval)] {
        let files = FileManager.default
        let now = Date()
        func aged(_ file: URL) -> (URL, TimeInterval) {
            let modified = (try? files.attributesOfItem(atPath: file.path)[.modificationDate] as? Date) ?? now
            return (file, now.timeIntervalSince(modified))
        }
        var temporary = ((try? files.contentsOfDirectory(atPath: temporaryFolder.path)) ?? []).map {
            aged(temporaryFolder.appendingPathComponent($0))
        }
        // The layout before `.tmp/`: `ab/.tmp-…`.
        for folder in (try? files.contentsOfDirectory(atPath: root.path)) ?? [] where folder.count == 2 {
            let path = root.appendingPathComponent(folder)
            for name in (try? files.contentsOfDirectory(atPath: path.path)) ?? [] where name.hasPrefix(".tmp-") {
                temporary.append(aged(path.appendingPathComponent(name)))
            }
        }
        return temporary
    }

    /// Removes the least recently written blobs until the folder holds at most `bytes` (a cache of object storage);
    /// returns how many went.
    func trim(toBytes bytes: Int) -> Int {
        let files = FileManager.default
        var blobs: [(url: URL, size: Int, modified: Date)] = []
        for folder in (try? files.contentsOfDirectory(atPath: root.path)) ?? [] where folder.count == 2 {
            let path = root.appendingPathComponent(folder)
            for name in (try? files.contentsOfDirectory(atPath: path.path)) ?? [] where name.count == 62 {
                let file = path.appendingPathComponent(name)
                guard let attributes = try? files.attributesOfItem(atPath: file.path) else { continue }
                blobs.append((file, (attributes[.size] as? Int) ?? 0, (attributes[.modificationDate] as? Date) ?? .distantPast))
            }
        }
        var total = blobs.reduce(0) { $0 + $1.size }
        var removed = 0
        for blob in blobs.sorted(by: { $0.modified < $1.modified }) where total > bytes {
            checked.hashes.withLock { _ = $0.remove(blob.url.deletingLastPathComponent().lastPathComponent + blob.url.lastPathComponent) }
            if (try? files.removeItem(at: blob.url)) != nil {
                total -= blob.size
                removed += 1
            }
        }
        return removed
    }
}
