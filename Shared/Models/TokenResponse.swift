import Foundation

/// OAuth-style token response of `/auth/token`, `/auth/refresh` and `/auth/signup`.
public struct TokenResponse: Codable, Sendable {
    public var accessToken: String
    public var tokenType: String
    public var expiresIn: Int
    public var refreshToken: String

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
    }

    public init(accessToken: String, expiresIn: Int, refreshToken: String) {
        self.accessToken = accessToken
        self.tokenType = "Bearer"
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
    }
}
