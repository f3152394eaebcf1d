import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceSupport
import Shared

/// koreader-sync-server's errors, with its status codes and its body (`{"code": 2001, "message": "Unauthorized"}`),
/// which KOReader's sync plugin reads; answered, not thrown, so that no problem document takes their place.
struct KOSyncError: Sendable, Equatable, JSONWritable {
    let status: Int
    let code: Int
    let message: String

    static let unauthorized = KOSyncError(status: 401, code: 2001, message: "Unauthorized")
    static let userExists = KOSyncError(status: 402, code: 2002, message: "Username is already registered.")
    static let invalidRequest = KOSyncError(status: 403, code: 2003, message: "Invalid request")
    static let documentMissing = KOSyncError(status: 403, code: 2004, message: "Field 'document' not provided.")
    static let registrationDisabled = KOSyncError(status: 402, code: 2005, message: "User registration is disabled.")

    func response() -> Response { JSONMessages.response(writing: self, status: HTTPResponse.Status(code: status)) }

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("code", code)
        json.field("message", message)
        json.endObject()
    }
}
