import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn` and reaped with `waitpid`, its output appended to a file.
///
/// Foundation's `Process` was seen to leave children unreaped (and `waitUntilExit` hanging) inside the test
/// runner, so the end-to-end harness manages its processes itself.
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    private let lock = NSLock()
    private var exitStatus: Int32?

    init(_ executable: String, _ arguments: [String], environment: [String: String], output: URL) throws {
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
        guard result == 0 else { throw StackError("cannot start \(executable): \(String(cString: strerror(result)))") }
        self.pid = pid
    }

    /// The exit status once the child has ended (a negative number: killed by that signal), else nil.
    var status: Int32? {
        lock.withLock {
            if exitStatus == nil {
                var raw: Int32 = 0
                if waitpid(pid, &raw, WNOHANG) == pid {
                    let signal = raw & 0x7f
                    exitStatus = signal == 0 ? (raw >> 8) & 0xff : -signal
                }
            }
            return exitStatus
        }
    }

    var isRunning: Bool { status == nil }

    func signal(_ signal: Int32) { if isRunning { kill(pid, signal) } }

    /// Waits for the child to end and returns its exit status.
    func wait() async -> Int32 {
        while true {
            if let status { return status }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
