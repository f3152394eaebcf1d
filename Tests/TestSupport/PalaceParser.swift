import Foundation

/// Runs `Tests/tools/palace_parse.py`: Palace's `palace-webpub-manifest-parser`, with which a production library system
/// imports OPDS 2.0 feeds, over documents this server emits. `make test` installs it in a virtual environment and
/// names its python in `TEST_PYTHON`.
public enum PalaceParser {
    /// nil when no document of `kind` (feed, publication, manifest) has an error, otherwise the errors, one a line.
    public static func problems(in documents: [Data], kind: String) throws -> String? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("palace-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var files: [String] = []
        for (index, document) in documents.enumerated() {
            let file = folder.appendingPathComponent("\(kind)-\(index).json")
            try document.write(to: file)
            files.append(file.path)
        }
        let python = ProcessInfo.processInfo.environment["TEST_PYTHON"] ?? "python3"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../tools/palace_parse.py").standardized
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, script.path, kind] + files
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus != 0 else { return nil }
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("ok ") }
        return String(lines.joined(separator: "\n").prefix(4000))
    }
}
