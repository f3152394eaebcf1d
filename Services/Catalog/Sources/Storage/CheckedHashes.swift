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
    /// Whether a blob is sound, by hash, while it is being checked.
    let underWay = SharedTasks<String, Bool>()
    /// Whole-file hashings done since start-up (a figure for tests).
    let hashings = Mutex(0)
}
