import Crypto
import Foundation
import Logging
import Metrics
import NIOPosix
import ServiceSupport
import Shared
import Synchronization

/// The blob hashes a store has checked, shared by its copies.
final class CheckedHashes: Sendable {
    let hashes = Mutex<Set<String>>([])
}
