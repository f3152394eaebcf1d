import Foundation

/// Where the tests find what they run besides Swift: the repository's own tools (`Tests/tools`, always there) and the
/// third-party EPUB corpus (`../shared/epubs`, only on the project's own machines and in CI).
public enum TestTools {
    /// `Tests/tools` of this repository.
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../tools").standardized

    /// The python that has the tests' packages (`scripts/test-tools.sh` makes it; `TEST_PYTHON`), else `python3`.
    public static var python: String { ProcessInfo.processInfo.environment["TEST_PYTHON"] ?? "python3" }

    /// `../shared/epubs` (or `SHARED_DIR/epubs`).
    public static var corpusDirectory: URL { TestDatabase.sharedDirectory.appendingPathComponent("epubs") }

    /// Whether the third-party corpus and its index are beside the repository. Tests of particular corpus books are
    /// enabled only then, with `corpusMissing` as the reason a bare clone reports them skipped.
    public static let corpusIsPresent = FileManager.default.isReadableFile(atPath: corpusDirectory.appendingPathComponent("INDEX.tsv").path)

    public static let corpusMissing: String =
        "the third-party EPUB corpus is not beside the repository (../shared/epubs or SHARED_DIR/epubs): only the project's own machines have it"

    /// `count` synthetic EPUBs from `Tests/tools/make_epubs.py` (EPUB 3 with nav, a quarter EPUB 2 with NCX, covers,
    /// ISBNs, genres), made once per process and `seed` in a temporary folder; the same seed gives the same books.
    /// `options` are the generator's (`--large-covers`, `--obfuscated-fonts`).
    public static func generatedBooks(count: Int, seed: Int = 7, options: [String] = []) -> [URL] {
        generated.withLock { cache in
            let key = "\(count)-\(seed)" + options.joined()
            if let books = cache[key] { return books }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "bookmobile-books-\(ProcessInfo.processInfo.processIdentifier)-\(key)"
            )
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", directory.appendingPathComponent("make_epubs.py").path, folder.path, "\(count)", "\(seed)"] + options
            process.standardOutput = FileHandle.nullDevice
            do {
                try process.run()
                process.waitUntilExit()
            } catch {
                return []
            }
            let books = ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? [])
                .filter { $0.pathExtension == "epub" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
            cache[key] = books
            return books
        }
    }

    /// A generated audiobook or PDF from `Tests/tools/make_media.py` (`kind`: m4b, mp3zip, package, pdf; `options` the
    /// generator's, such as `--chapters 3 --seconds 20`), made once per process and arguments. Needs ffmpeg for audio.
    /// Awaited, never waited for on a thread: tests that all ask at once must not hold Swift's few cooperative threads.
    public static func generatedMedia(_ kind: String, _ options: [String] = []) async throws -> URL {
        try await media.file(kind, options)
    }

    public struct MediaNotMade: Error, CustomStringConvertible {
        let kind: String
        public var description: String { "make_media.py \(kind) failed (is ffmpeg installed? scripts/test.sh installs it)" }
    }

    private static let media = GeneratedMedia()

    private static let generated = LockedCache()
}

/// A lock around the generated books' folders, so that parallel tests make each set once.
private final class LockedCache: @unchecked Sendable {
    private let lock = NSLock()
    private var books: [String: [URL]] = [:]

    func withLock<T>(_ body: (inout [String: [URL]]) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&books)
    }
}

/// The generated media files of this process, each made once by one task however many tests ask for it.
private actor GeneratedMedia {
    private var made: [String: Task<URL, any Error>] = [:]

    func file(_ kind: String, _ options: [String]) async throws -> URL {
        let key = ([kind] + options).joined(separator: " ")
        if let task = made[key] { return try await task.value }
        let task = Task { try await Self.make(kind, options, key: key) }
        made[key] = task
        return try await task.value
    }

    private static func make(_ kind: String, _ options: [String], key: String) async throws -> URL {
        let fileExtension = ["m4b": "m4b", "mp3zip": "zip", "package": "audiobook", "pdf": "pdf"][kind] ?? kind
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bookmobile-media-\(ProcessInfo.processInfo.processIdentifier)-\(abs(key.hashValue)).\(fileExtension)"
        )
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", TestTools.directory.appendingPathComponent("make_media.py").path, kind, file.path] + options
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        guard status == 0 else { throw TestTools.MediaNotMade(kind: kind) }
        return file
    }
}
