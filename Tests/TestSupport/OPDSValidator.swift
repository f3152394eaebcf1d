import Foundation

/// Runs `../shared/tools/validate_opds.py` (the official OPDS 1.2 RELAX NG and OPDS 2.0 / Readium JSON Schemas).
public enum OPDSValidator {
    /// Returns nil when `document` is valid as `kind` (atom, feed, publication, auth, profile, manifest),
    /// otherwise the validator's explanation.
    public static func problems(in document: Data, kind: String) throws -> String? {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("doc-\(UUID().uuidString)")
        try document.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", TestDatabase.sharedDirectory.appendingPathComponent("tools/validate_opds.py").path, kind, file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? nil : String(decoding: output.prefix(2000), as: UTF8.self)
    }
}
