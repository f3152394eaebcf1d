import Hummingbird
import ServiceSupport

extension Request {
    /// The shelf version the gateway knows this patron has seen (`X-Internal-Shelf-Version`): catalog's copy must be
    /// at least as new.
    var shelfVersionSeen: Int64? { headers[.shelfVersion].flatMap { Int64($0) } }
}
