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
    /// ISBNs, genres), made once per process and `seed` in a temporary folder; the same seed gives the same books (none
    /// when the generator failed). `options` are the generator's (`--large-covers`, `--obfuscated-fonts`). Awaited, as
    /// `generatedMedia`: waiting for the generator on a thread, under a lock, held both of a two-core machine's
    /// cooperative threads at the start of a run, and every test of the process stood still for seconds.
    public static func generatedBooks(count: Int, seed: Int = 7, options: [String] = []) async -> [URL] {
        let key = "\(count)-\(seed)" + options.joined()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bookmobile-books-\(ProcessInfo.processInfo.processIdentifier)-\(key)"
        )
        let made = try? await madeOnce.value(for: "books " + key) {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let script = directory.appendingPathComponent("make_epubs.py").path
            _ = try await ChildProcess.run(["python3", script, folder.path, "\(count)", "\(seed)"] + options)
            return folder
        }
        guard let made else { return [] }
        return ((try? FileManager.default.contentsOfDirectory(at: made, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.pathExtension == "epub" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// A generated audiobook or PDF from `Tests/tools/make_media.py` (`kind`: m4b, mp3zip, package, pdf; `options` the
    /// generator's, such as `--chapters 3 --seconds 20`), made once per process and arguments. Needs ffmpeg for audio.
    /// Awaited, never waited for on a thread: tests that all ask at once must not hold Swift's few cooperative threads.
    public static func generatedMedia(_ kind: String, _ options: [String] = []) async throws -> URL {
        let key = ([kind] + options).joined(separator: " ")
        return try await madeOnce.value(for: "media " + key) {
            let fileExtension = ["m4b": "m4b", "mp3zip": "zip", "package": "audiobook", "pdf": "pdf"][kind] ?? kind
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "bookmobile-media-\(ProcessInfo.processInfo.processIdentifier)-\(abs(key.hashValue)).\(fileExtension)"
            )
            let script = directory.appendingPathComponent("make_media.py").path
            let made = try await ChildProcess.run(["python3", script, kind, file.path] + options)
            guard made.status == 0 || made.status == ChildProcess.statusLost, FileManager.default.fileExists(atPath: file.path) else {
                throw MediaNotMade(kind: kind)
            }
            return file
        }
    }

    public struct MediaNotMade: Error, CustomStringConvertible {
        let kind: String
        public var description: String { "make_media.py \(kind) failed (is ffmpeg installed? scripts/test.sh installs it)" }
    }

    private static let madeOnce = MadeOnce()
}

/// What the generators made in this process, each made by one task however many tests ask for it at once, and one
/// generator at a time (as when they were waited for under a lock): at a run's start, when every test starts at once,
/// several at a time only took the cores from the rest.
private actor MadeOnce {
    private var made: [String: Task<URL, any Error>] = [:]
    private var last: Task<URL, any Error>?

    func value(for key: String, make: @escaping @Sendable () async throws -> URL) async throws -> URL {
        if let task = made[key] { return try await task.value }
        let task = Task { [last] in
            _ = await last?.result
            return try await make()
        }
        (made[key], last) = (task, task)
        return try await task.value
    }
}
