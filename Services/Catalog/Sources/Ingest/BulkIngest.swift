import Foundation
import Logging
import PostgresSupport
import ServiceSupport

/// `catalog ingest PATH...`: walks folders for books (EPUBs, PDFs, audiobooks: `collect`), ingests them concurrently and reports progress
/// (a bar with rate and ETA on a terminal, plain lines otherwise) and a summary.
public enum BulkIngest {
    public struct Summary: Sendable {
        public var ingested = 0
        public var unchanged = 0
        public var refused: [(String, String)] = []
    }

    public static func run(
        paths: [String],
        copies: Int,
        openAccess: Bool,
        replace: Bool = false,
        concurrency: Int,
        config: ServiceConfig
    ) async throws -> Summary {
        let parts = try CatalogDependencies(config: config)
        let files = collect(paths)
        let options = Ingester.Options(copies: copies, openAccess: openAccess, featured: false, replace: replace)
        let terminal = isatty(STDERR_FILENO) == 1
        let start = Date()
        var summary = Summary()
        try await parts.postgres.whileRunning {
            try await catalogSchema.apply(client: parts.postgres, logger: parts.logger)
            try await withThrowingTaskGroup(of: (String, Result<IngestResult.Outcome, any Error>).self) { group in
                var iterator = files.makeIterator()
                func launch() {
                    guard let file = iterator.next() else { return }
                    group.addTask {
                        do {
                            let result = try await parts.ingester.ingest(file: file, options: options, logger: parts.logger)
                            return (file.path, .success(result.outcome))
                        } catch {
                            return (file.path, .failure(error))
                        }
                    }
                }
                for _ in 0..<max(1, concurrency) { launch() }
                var done = 0
                while let (path, result) = try await group.next() {
                    done += 1
                    switch result {
                    case .success(.unchanged): summary.unchanged += 1
                    case .success: summary.ingested += 1
                    case .failure(let error):
                        let reason = (error as? any ProblemConvertible)?.problem.detail ?? "\(error)"
                        summary.refused.append((path, reason))
                    }
                    report(done: done, total: files.count, start: start, terminal: terminal, path: path)
                    launch()
                }
            }
        }
        if terminal { FileHandle.standardError.write(Data("\n".utf8)) }
        print(
            "ingested \(summary.ingested), unchanged \(summary.unchanged), refused \(summary.refused.count) in \(String(format: "%.1f", Date().timeIntervalSince(start))) s"
        )
        for (path, reason) in summary.refused { print("refused \(path): \(reason)") }
        return summary
    }

    /// The books under `paths`: EPUB, PDF and audiobook files (M4B, a single MP3, `.audiobook` packages, ZIPs of tracks),
    /// and every folder that holds MP3 or M4A tracks as one audiobook (its subfolders are not walked).
    static func collect(_ paths: [String]) -> [URL] {
        var files: [URL] = []
        for path in paths {
            let url = URL(fileURLWithPath: path)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if !isDirectory.boolValue {
                files.append(url)
                continue
            }
            if holdsTracks(url) {
                files.append(url)
                continue
            }
            let enumerator = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isDirectoryKey])
            while let next = enumerator?.nextObject() as? URL {
                if (try? next.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
                    if holdsTracks(next) {
                        files.append(next)
                        enumerator?.skipDescendants()
                    }
                } else if bookExtensions.contains(next.pathExtension.lowercased()) {
                    files.append(next)
                }
            }
        }
        return files.sorted { $0.path < $1.path }
    }

    static let bookExtensions: Set<String> = ["epub", "pdf", "m4b", "audiobook", "zip"]

    /// Whether a folder holds the tracks of one audiobook (MP3 or M4A files; a lone M4B is a book of its own).
    private static func holdsTracks(_ folder: URL) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.contains { ["mp3", "m4a"].contains(($0 as NSString).pathExtension.lowercased()) }
    }

    static func report(done: Int, total: Int, start: Date, terminal: Bool, path: String) {
        let elapsed = max(Date().timeIntervalSince(start), 0.001)
        let rate = Double(done) / elapsed
        let eta = rate > 0 ? Double(total - done) / rate : 0
        if terminal {
            let width = 30
            let filled = total > 0 ? width * done / total : width
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            FileHandle.standardError.write(Data(String(format: "\r[%@] %d/%d %.1f books/s ETA %.0fs", bar, done, total, rate, eta).utf8))
        } else if done % 50 == 0 || done == total {
            FileHandle.standardError.write(Data(String(format: "%d/%d ingested (%.1f books/s, ETA %.0fs)\n", done, total, rate, eta).utf8))
        }
    }
}
