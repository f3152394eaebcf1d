import Foundation
import Hummingbird

/// Who is asking, as the gateway vouched for it: the patron id and the client address are trusted only when the
/// request also carries the service token.
public struct Caller: Sendable {
    public let patronID: UUID?
    public let clientAddress: String?

    public init(request: Request, token: ServiceToken) {
        if token.matches(request.headers[.serviceToken]) {
            patronID = request.headers[.patronID].flatMap(UUID.init(uuidString:))
            clientAddress = request.headers[.clientAddress]
        } else {
            patronID = nil
            clientAddress = nil
        }
    }
}
