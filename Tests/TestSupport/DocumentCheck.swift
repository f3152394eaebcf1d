import Foundation

/// Runs a Python checker over documents written to a temporary folder: `python script kind file...`, which prints
/// "ok FILE" for a good document and anything else for a bad one, and exits non-zero when any is bad.
enum DocumentCheck {
    /// nil when the checker accepts every document, otherwise what it said of the others (at most 4,000 characters).
    static func problems(python: String, script: URL, kind: String, documents: [Data]) async throws -> String? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var files: [String] = []
        for (index, document) in documents.enumerated() {
            let file = folder.appendingPathComponent("\(kind)-\(index)")
            try document.write(to: file)
            files.append(file.path)
        }
        let (status, output) = try await ChildProcess.run([python, script.path, kind] + files)
        guard status != 0 else { return nil }
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("ok ") }
        return String(lines.joined(separator: "\n").prefix(4000))
    }
}
