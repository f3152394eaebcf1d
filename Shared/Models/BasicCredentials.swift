import Foundation

/// Request of `POST /internal/auth/basic`: credentials that the gateway received as HTTP Basic.
public struct BasicCredentials: Codable, Sendable {
    public var login: String
    public var secret: String
    public var clientAddress: String?

    public init(login: String, secret: String, clientAddress: String?) {
        self.login = login
        self.secret = secret
        self.clientAddress = clientAddress
    }
}
