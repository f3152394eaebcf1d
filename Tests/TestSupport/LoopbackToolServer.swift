import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A server of `Tests/tools` (a SIP2 server, an OpenID Connect provider) started on loopback: `--port` (0: any free
/// port; after `stop()`, the one it had) and `--ready-file`, where the tool writes its port once it answers. Its output
/// goes to a log of its own.
public final class LoopbackToolServer: @unchecked Sendable {
    public private(set) var port = 0
    private var process: ChildProcess?
    private let script: String
    private let log: URL

    public init(script: String, name: String) {
        self.script = script
        log = FileManager.default.temporaryDirectory.appendingPathComponent("bookmobile-\(name)-\(UUID().uuidString.prefix(8)).log")
    }

    /// Starts the tool with `arguments` after its port and ready file, and returns once it answers.
    public func start(_ arguments: [String] = []) async throws {
        let ready = log.appendingPathExtension("port")
        try? FileManager.default.removeItem(at: ready)
        process = try ChildProcess(
            TestTools.python,
            [TestTools.directory.appendingPathComponent(script).path, "--port", "\(port)", "--ready-file", ready.path] + arguments,
            environment: ProcessInfo.processInfo.environment,
            output: log
        )
        try await eventually(timeout: .seconds(30), "\(script) did not start: \(output)") {
            guard let text = try? String(contentsOf: ready, encoding: .utf8), let number = Int(text) else { return false }
            port = number
            return true
        }
    }

    public func stop() async {
        process?.signal(SIGTERM)
        _ = await process?.wait()
        process = nil
    }

    /// What the tool logged.
    public var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
}
