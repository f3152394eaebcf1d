import Crypto
import Foundation
import Logging
import Metrics
import NIOPosix
import ServiceSupport
import Shared
import Synchronization

/// A blob that is missing or whose bytes do not match its hash.
struct BlobDamaged: Error, CustomStringConvertible {
    var sha256: String
    var missing: Bool
    var description: String { missing ? "blob \(sha256) is missing" : "blob \(sha256) does not match its hash" }
}
