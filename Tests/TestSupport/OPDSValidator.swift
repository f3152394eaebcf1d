import Foundation

/// Runs `Tests/tools/opds/validate_opds.py`, a copy of `../shared/tools/validate_opds.py` with the schemas it reads (the official OPDS 1.2 RELAX NG and OPDS 2.0 / Readium JSON Schemas).
public enum OPDSValidator {
    /// Returns nil when `document` is valid as `kind` (atom, feed, publication, auth, profile, manifest),
    /// otherwise the validator's explanation.
    public static func problems(in document: Data, kind: String) async throws -> String? { try await problems(in: [document], kind: kind) }

    /// Validates many documents of one kind with one run of the validator: nil when every one is valid.
    public static func problems(in documents: [Data], kind: String) async throws -> String? {
        try await DocumentCheck.problems(
            python: TestTools.python,
            script: TestTools.directory.appendingPathComponent("opds/validate_opds.py"),
            kind: kind,
            documents: documents
        )
    }
}
