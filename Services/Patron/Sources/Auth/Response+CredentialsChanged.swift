import Foundation
import HTTPTypes
import Hummingbird
import ServiceSupport
import Shared

extension Response {
    /// Tells the gateway that `patron`'s credentials or sessions changed (`InternalHeader.credentialsChanged`): it
    /// forgets what it cached about them before the next request, whatever path the change came through.
    func announcingCredentialsChanged(of patron: UUID) -> Response {
        var response = self
        response.headers[.credentialsChanged] = patron.uuidString.lowercased()
        return response
    }
}
