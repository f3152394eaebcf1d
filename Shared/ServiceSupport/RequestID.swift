import Foundation
import HTTPTypes
import Hummingbird
import Shared

/// The request id of the request being handled, for outbound internal calls.
public enum RequestID {
    @TaskLocal public static var current: String?

    /// A client-sent id is kept when it is short and printable; otherwise a new one is made.
    public static func accept(_ candidate: String?) -> String {
        if let candidate, (1...128).contains(candidate.utf8.count), candidate.utf8.allSatisfy(isAllowed) { return candidate }
        return make()
    }

    /// A new id (a random UUID), for a request that came with none.
    public static func make() -> String { UUID.random().lowercased }

    /// ASCII letters, digits and `-_.:`, byte by byte (every request the gateway forwards carries an id).
    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"): true
        default: false
        }
    }
}

extension HTTPField.Name {
    public static let requestID = HTTPField.Name(InternalHeader.requestID)!
    public static let patronID = HTTPField.Name(InternalHeader.patronID)!
    public static let patronSignature = HTTPField.Name(InternalHeader.patronSignature)!
    public static let serviceToken = HTTPField.Name(InternalHeader.serviceToken)!
    public static let clientAddress = HTTPField.Name(InternalHeader.clientAddress)!
    public static let sharedETag = HTTPField.Name(InternalHeader.sharedETag)!
    public static let sharedPageUsable = HTTPField.Name(InternalHeader.sharedPageUsable)!
    public static let spliceAccepted = HTTPField.Name(InternalHeader.spliceAccepted)!
    public static let splice = HTTPField.Name(InternalHeader.splice)!
    public static let splicedETag = HTTPField.Name(InternalHeader.splicedETag)!
    public static let shelfVersion = HTTPField.Name(InternalHeader.shelfVersion)!
    public static let credentialsChanged = HTTPField.Name(InternalHeader.credentialsChanged)!
    public static let backgroundCheck = HTTPField.Name(InternalHeader.backgroundCheck)!
    public static let pageBooks = HTTPField.Name(InternalHeader.pageBooks)!
    public static let staleRefresh = HTTPField.Name(InternalHeader.staleRefresh)!
}
