import Foundation
import Hummingbird

/// Who is asking, as the gateway vouched for it: the patron id and the client address are trusted only when the
/// request also carries the service token, and the patron id only with the gateway's fresh signature for it
/// (`PatronIdentity`).
public struct Caller: Sendable {
    public let patronID: UUID?
    public let clientAddress: String?

    public init(request: Request, token: ServiceToken) {
        if token.matches(request.headers[.serviceToken]) {
            let claimed = request.headers[.patronID].flatMap(UUID.init(uuidString:))
            patronID = claimed.flatMap { token.identity?.verifies(request.headers[.patronSignature], for: $0) == true ? $0 : nil }
            clientAddress = request.headers[.clientAddress]
        } else {
            patronID = nil
            clientAddress = nil
        }
    }
}
