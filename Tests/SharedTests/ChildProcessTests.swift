import Foundation
import ServiceSupport
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `ChildProcess`, which the tests wait on for PostgreSQL, S3 and the services: a child reaped by someone else still
/// ends the wait (it once could loop forever, the suspect of a stalled CI run).
@Suite struct ChildProcessTests {
    @Test func aChildsExitStatusIsReported() async throws {
        #expect(try await ChildProcess.run(["sh", "-c", "exit 3"]).status == 3)
    }

    @Test func aChildReapedElsewhereEndsTheWaitWithItsStatusLost() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: output) }
        let child = try ChildProcess("/bin/sh", ["-c", "exit 0"], environment: [:], output: output)
        var raw: Int32 = 0
        #expect(waitpid(child.pid, &raw, 0) == child.pid, "reaped here, before the child's own wait")
        // Within a limit: a wait that never ends fails here instead of stalling the run.
        #expect(try await withTimeout(seconds: 10) { await child.wait() } == ChildProcess.statusLost)
    }
}
