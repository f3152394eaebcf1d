import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceSupport
import Shared

/// RFC 6749 5.1: responses that carry tokens (or refuse them) must not be stored by any cache.
enum TokenResponses {
    static let noStore: HTTPFields = [.cacheControl: "no-store", .init("Pragma")!: "no-cache"]
}
