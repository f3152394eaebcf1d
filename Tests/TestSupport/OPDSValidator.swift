import Foundation

/// Runs `../shared/tools/validate_opds.py` (the official OPDS 1.2 RELAX NG and OPDS 2.0 / Readium JSON Schemas).
public enum OPDSValidator {
    /// Returns nil when `document` is valid as `kind` (atom, feed, publication, auth, profile, manifest),
    /// otherwise the validator's explanation.
    public static func problems(in document: Data, kind: String) throws -> String? { try problems(in: [document], kind: kind) }

    /// Validates many documents of one kind with one run of the validator: nil when every one is valid.
    public static func problems(in documents: [Data], kind: String) throws -> String? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var files: [String] = []
        for (index, document) in documents.enumerated() {
            let file = folder.appendingPathComponent("\(index)")
            try document.write(to: file)
            files.append(file.path)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", TestDatabase.sharedDirectory.appendingPathComponent("tools/validate_opds.py").path, kind] + files
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus != 0 else { return nil }
        let invalid = String(decoding: output, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("ok ") }
        return String(invalid.joined(separator: "\n").prefix(4000))
    }
}
