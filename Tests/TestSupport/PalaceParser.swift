import Foundation

/// Runs `Tests/tools/palace_parse.py`: Palace's `palace-webpub-manifest-parser`, with which a production library system
/// imports OPDS 2.0 feeds, over documents this server emits. `make test` installs it in a virtual environment and
/// names its python in `TEST_PYTHON`.
public enum PalaceParser {
    /// nil when no document of `kind` (feed, publication, manifest) has an error, otherwise the errors, one a line.
    public static func problems(in documents: [Data], kind: String) async throws -> String? {
        try await DocumentCheck.problems(
            python: TestTools.python,
            script: TestTools.directory.appendingPathComponent("palace_parse.py"),
            kind: kind,
            documents: documents
        )
    }
}
