import Foundation

/// Inflates gzip with the system's `gzip`, so a check of the project's own gzip does not trust the code under test.
public func gunzip(_ data: Data) async throws -> Data {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("gz-\(UUID().uuidString).gz")
    try data.write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    return try await ChildProcess.run(["gzip", "-dc", file.path]).output
}
