import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn` and reaped with `waitpid`, its output appended to a file.
///
/// Foundation's `Process` was seen to leave children unreaped (and `waitUntilExit` hanging) inside the test
/// runner, so the tests manage their processes themselves; and waiting for one must not block one of Swift's
/// cooperative threads (two at once on a two-core machine stopped every other task of the test process: the suite's
/// stalls, and a gateway under test that never answered).
public final class ChildProcess: @unchecked Sendable {
    /// A child that could not be started.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let pid: pid_t
    /// The status of a child that ended but was reaped elsewhere.
    public static let statusLost: Int32 = 255
    private let lock = NSLock()
    private var exitStatus: Int32?

    public init(_ executable: String, _ arguments: [String], environment: [String: String], output: URL) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard result == 0 else { throw Failure(description: "cannot start \(executable): \(String(cString: strerror(result)))") }
        self.pid = pid
    }

    /// The exit status once the child has ended (a negative number: killed by that signal), else nil.
    public var status: Int32? {
        lock.withLock {
            if exitStatus == nil {
                var raw: Int32 = 0
                let reaped = waitpid(pid, &raw, WNOHANG)
                if reaped == pid {
                    let signal = raw & 0x7f
                    exitStatus = signal == 0 ? (raw >> 8) & 0xff : -signal
                } else if reaped == -1, errno == ECHILD {
                    // Reaped by someone else (a handler waiting for any child): ended, its status lost. Waiting on
                    // would never end.
                    exitStatus = Self.statusLost
                }
            }
            return exitStatus
        }
    }

    public var isRunning: Bool { status == nil }

    public func signal(_ signal: Int32) { if isRunning { kill(pid, signal) } }

    /// Waits for the child to end and returns its exit status.
    public func wait() async -> Int32 {
        while true {
            if let status { return status }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Runs `arguments` through `/usr/bin/env` (a program's name is looked up on `PATH`) to its end, without blocking a
    /// thread: its exit status, and what it wrote to standard output and standard error.
    public static func run(
        _ arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> (status: Int32, output: Data) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: output) }
        let child = try ChildProcess("/usr/bin/env", arguments, environment: environment, output: output)
        let status = await child.wait()
        return (status, (try? Data(contentsOf: output)) ?? Data())
    }
}
