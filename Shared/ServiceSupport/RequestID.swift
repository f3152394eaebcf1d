import Foundation
import HTTPTypes
import Hummingbird
import Shared

/// The request id of the request being handled, for outbound internal calls.
public enum RequestID {
    @TaskLocal public static var current: String?

    /// A client-sent id is kept when it is short and printable; otherwise a new one is made.
    public static func accept(_ candidate: String?) -> String {
        if let candidate, (1...128).contains(candidate.count),
            candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.:".contains($0)) })
        {
            return candidate
        }
        return UUID().lowercased
    }
}

extension HTTPField.Name {
    public static let requestID = HTTPField.Name(InternalHeader.requestID)!
    public static let patronID = HTTPField.Name(InternalHeader.patronID)!
    public static let serviceToken = HTTPField.Name(InternalHeader.serviceToken)!
    public static let clientAddress = HTTPField.Name(InternalHeader.clientAddress)!
    public static let sharedETag = HTTPField.Name(InternalHeader.sharedETag)!
    public static let sharedPageUsable = HTTPField.Name(InternalHeader.sharedPageUsable)!
    public static let shelfVersion = HTTPField.Name(InternalHeader.shelfVersion)!
}
