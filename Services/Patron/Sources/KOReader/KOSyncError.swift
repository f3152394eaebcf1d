import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// koreader-sync-server's errors, with its status codes and its body (`{"code": 2001, "message": "Unauthorized"}`),
/// which KOReader's sync plugin reads; answered, not thrown, so that no problem document takes their place.
struct KOSyncError: Sendable, Equatable {
    let status: Int
    let code: Int
    let message: String

    static let unauthorized = KOSyncError(status: 401, code: 2001, message: "Unauthorized")
    static let userExists = KOSyncError(status: 402, code: 2002, message: "Username is already registered.")
    static let invalidRequest = KOSyncError(status: 403, code: 2003, message: "Invalid request")
    static let documentMissing = KOSyncError(status: 403, code: 2004, message: "Field 'document' not provided.")
    static let registrationDisabled = KOSyncError(status: 402, code: 2005, message: "User registration is disabled.")

    func response() -> Response {
        let body = #"{"code":\#(code),"message":"\#(message.replacingOccurrences(of: "\"", with: "\\\""))"}"#
        return Response(
            status: HTTPResponse.Status(code: status),
            headers: [.contentType: KOSync.mediaType],
            body: .init(byteBuffer: ByteBuffer(string: body))
        )
    }
}
