import Foundation
import Logging
import NIOCore
import ServiceSupport
import Shared

/// Blobs as objects in an S3-compatible bucket (`BLOB_STORE=s3://bucket/prefix`), keyed `prefix/ab/cdef…` by hash, so
/// that catalog replicas share no disk. Each replica keeps the blobs it serves in a local folder (`BLOB_DIR`), a cache
/// bounded by `BLOB_CACHE_MAX_BYTES` and trimmed by the sweep: a download, a range, a cover or a publication resource
/// is read from there (the EPUB's archive wants random access), after one fetch of the whole object per replica,
/// hashed on its way in; an object whose bytes do not match its name is deleted and never served.
///
/// Writes: an object is sent whole up to `partSize`, its SHA-256 (the blob's name) as the signed payload hash, so the
/// store itself refuses bytes that do not match; a larger file goes in parts of `partSize` read one at a time from
/// disk, the upload aborted on failure (the sweep aborts one cut off by a crash).
struct S3BlobStore: BlobStore {
    let client: S3Client
    let cache: DirectoryBlobStore
    let cacheMaxBytes: Int
    /// `BLOB_REDIRECT=presigned`: downloads answered with a presigned URL valid `redirectLifetime` seconds.
    let redirects: Bool
    let redirectLifetime: Int
    let logger: Logger
    static let partSize = 5 << 20
    /// The fetches of objects into the cache under way, by hash: concurrent first requests wait for one.
    private let fetches = SharedTasks<String, Result<URL, any Error>>()

    init(
        client: S3Client,
        cache: DirectoryBlobStore,
        cacheMaxBytes: Int = 2 << 30,
        redirects: Bool = false,
        redirectLifetime: Int = 300,
        logger: Logger
    ) {
        self.client = client
        self.cache = cache
        self.cacheMaxBytes = cacheMaxBytes
        self.redirects = redirects
        self.redirectLifetime = redirectLifetime
        self.logger = logger
    }

    /// The object key of a blob.
    func key(_ sha256: String) -> String { keyPrefix + BlobHash.path(sha256) }
    private var keyPrefix: String { client.location.prefix.isEmpty ? "" : client.location.prefix + "/" }

    func put(_ data: Data) async throws -> (sha256: String, created: Bool) {
        let hash = BlobHash.of(data)
        if try await client.head(key(hash), logger: logger) == data.count { return (hash, false) }
        try await client.put(key(hash), body: ByteBuffer(bytes: data), sha256: hash, logger: logger)
        return (hash, true)
    }

    func put(file: URL) async throws -> (sha256: String, created: Bool) {
        let (hash, size) = try await BlockingWork.run {
            (try BlobHash.of(file: file), (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0)
        }
        if try await client.head(key(hash), logger: logger) == size { return (hash, false) }
        if size <= Self.partSize {
            let data = try await BlockingWork.run { try Data(contentsOf: file) }
            try await client.put(key(hash), body: ByteBuffer(bytes: data), sha256: hash, logger: logger)
        } else {
            try await putInParts(file: file, size: size, key: key(hash))
        }
        return (hash, true)
    }

    /// A multipart upload, one part in memory at a time; aborted when any step fails.
    private func putInParts(file: URL, size: Int, key: String) async throws {
        let upload = try await client.startMultipart(key, logger: logger)
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            var parts: [String] = []
            var offset = 0
            while offset < size {
                let count = min(Self.partSize, size - offset)
                let part = try await FileChunk.read(handle.fileDescriptor, at: offset, upTo: count)
                guard part.readableBytes == count else { throw CocoaError(.fileReadUnknown) }
                parts.append(try await client.uploadPart(key, upload: upload, number: parts.count + 1, body: part, logger: logger))
                offset += count
            }
            try await client.completeMultipart(key, upload: upload, parts: parts, logger: logger)
        } catch {
            try? await client.abortMultipart(key, upload: upload, logger: logger)
            throw error
        }
    }

    func remove(_ sha256: String) async throws {
        try await client.delete(key(sha256), logger: logger)
        try await cache.remove(sha256)
    }

    func forEachStoredBatch(_ body: ([String]) async throws -> Void) async throws {
        var token: String?
        repeat {
            let page = try await client.list(prefix: keyPrefix, after: token, logger: logger)
            let hashes = page.keys.compactMap { BlobHash.named($0.dropFirst(keyPrefix.count)) }
            if !hashes.isEmpty { try await body(hashes) }
            token = page.next
        } while token != nil
    }

    /// The cache's temporary files, and the uploads a crash cut off.
    func removeAbandonedWrites(olderThan age: TimeInterval) async throws -> Int {
        var removed = try await cache.removeAbandonedWrites(olderThan: age)
        for upload in try await client.unfinishedUploads(prefix: keyPrefix, logger: logger) where Date().timeIntervalSince(upload.started) > age {
            try await client.abortMultipart(upload.key, upload: upload.upload, logger: logger)
            removed += 1
        }
        return removed
    }

    func verified(_ sha256: String) async throws -> URL {
        if let url = await cache.soundCopy(sha256) { return url }
        let fetched = fetches.task(for: sha256) { () async -> Result<URL, any Error> in
            do { return .success(try await fetch(sha256)) } catch { return .failure(error) }
        }
        return try await fetched.value.get()
    }

    /// Fetches the object into the cache, hashing it on the way: the cached file, or `BlobDamaged` (the object is
    /// missing, or its bytes do not match its name and it was deleted).
    private func fetch(_ sha256: String) async throws -> URL {
        guard let response = try await client.get(key(sha256), logger: logger) else { throw BlobDamaged(sha256: sha256, missing: true) }
        let temporary = try cache.temporaryFile()
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            var hasher = BlobHash.Hasher()
            var pending = ByteBuffer()
            for try await part in response.body {
                hasher.update(part)
                pending.writeImmutableBuffer(part)
                // Written a megabyte at a time, on the blocking queue.
                if pending.readableBytes >= 1 << 20 {
                    let bytes = pending
                    try await BlockingWork.run { try handle.write(contentsOf: bytes.readableBytesView) }
                    pending.clear()
                }
            }
            let rest = pending
            try await BlockingWork.run { try handle.write(contentsOf: rest.readableBytesView) }
            guard hasher.finalize() == sha256 else {
                logger.error("Stored object damaged; deleted", metadata: ["blob": "\(sha256)", "store": "\(client.location.description)"])
                try? await client.delete(key(sha256), logger: logger)
                throw BlobDamaged(sha256: sha256, missing: false)
            }
            try cache.adopt(temporary, as: sha256)
            return cache.url(for: sha256)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }

    func trimLocalCopies() -> Int { cache.trim(toBytes: cacheMaxBytes) }

    func redirect(for sha256: String) -> String? {
        redirects ? client.presignedGET(key(sha256), expires: redirectLifetime) : nil
    }

    /// Says at start-up, in the log, whether the bucket can be used (without holding the start-up: a store that is
    /// away answers 503s until it is back).
    func probeInBackground() {
        Task {
            do {
                try await probe()
                logger.info("Object storage ready", metadata: ["store": "\(client.location.description)"])
            } catch {
                logger.error(
                    "Object storage cannot be used: check BLOB_STORE, S3_ENDPOINT, the credentials and that the bucket exists",
                    metadata: ["store": "\(client.location.description)", "error": "\((error as? Problem)?.detail ?? "\(error)")"]
                )
            }
        }
    }

    /// Whether the bucket can be listed, written and read: a probe object is stored, read and deleted. Throws the
    /// store's answer otherwise (a missing bucket, refused credentials, an unreachable endpoint).
    func probe() async throws {
        _ = try await client.list(prefix: keyPrefix, after: nil, logger: logger)
        let probe = keyPrefix + ".probe-\(UUID().uuidString.lowercased())"
        let body = ByteBuffer(string: "bookmobile")
        try await client.put(probe, body: body, sha256: BlobHash.of(Data(buffer: body)), logger: logger)
        guard try await client.head(probe, logger: logger) == body.readableBytes else {
            throw S3Client.unavailable("an object written to \(client.location.description) could not be read back")
        }
        try await client.delete(probe, logger: logger)
    }
}
