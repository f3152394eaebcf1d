import Crypto
import Foundation
import Logging
import Metrics
import NIOPosix
import ServiceSupport
import Shared
import Synchronization

/// The blob hashes a store has checked, shared by its copies, and the checks under way: concurrent first requests
/// for one blob (after a restart, a popular book) wait for one hashing of it instead of each reading the whole file.
final class CheckedHashes: Sendable {
    let hashes = Mutex<Set<String>>([])
    let underWay = Mutex<[String: Task<Bool, any Error>]>([:])
    /// Whole-file hashings done since start-up (a figure for tests).
    let hashings = Mutex(0)

    /// The result of the check of `hash` under way, or of `check` started now for the callers that come meanwhile.
    func sharedCheck(_ hash: String, _ check: @escaping @Sendable () async throws -> Bool) async throws -> Bool {
        let task = underWay.withLock { running in
            if let task = running[hash] { return task }
            let task = Task { try await check() }
            running[hash] = task
            return task
        }
        defer { _ = underWay.withLock { $0.removeValue(forKey: hash) } }
        return try await task.value
    }
}
