import Foundation
import ServiceSupport

/// How patron reaches the library's identity provider over OpenID Connect (docs/DEPLOY.md, "Single sign-on").
struct OIDCSettings: Sendable {
    /// `OIDC_ISSUER`: the provider's issuer URL; its discovery document is `/.well-known/openid-configuration` below it.
    var issuer: String
    /// `OIDC_CLIENT_ID` and `OIDC_CLIENT_SECRET` (none: a public client, PKCE alone).
    var clientID: String
    var clientSecret: String?
    /// `OIDC_SCOPES`: asked of the provider (`openid` always).
    var scopes: String
    /// `OIDC_PATRON_TYPE_CLAIM`: the ID token's claim naming the patron's type (mapped as SIP2's `PC` is, through
    /// `PATRON_TYPE_NAMES`); none: a patron's type is staff's to set.
    var typeClaim: String?
    /// `OIDC_LABEL`: what the sign-in button and the Authentication for OPDS flow say.
    var label: String
    /// `OIDC_APP_REDIRECTS`: URL prefixes, besides this library's own address, that apps may ask to be sent back to
    /// with their tokens (an app's custom scheme, for example); anything else is refused.
    var appRedirects: [String]
    /// `OIDC_TIMEOUT`: seconds to wait for the provider.
    var timeout: TimeInterval

    /// nil unless `PATRON_AUTH` names `oidc`.
    init?(config: ServiceConfig, methods: Set<String>) throws {
        guard methods.contains("oidc") else { return nil }
        guard let issuer = config.string("OIDC_ISSUER"), let url = URL(string: issuer), ["https", "http"].contains(url.scheme ?? "") else {
            throw ServiceConfig.Invalid(description: "PATRON_AUTH names oidc: OIDC_ISSUER must be the provider's issuer URL")
        }
        // Plain HTTP would carry codes and tokens in clear: only to this machine, or on a development machine.
        guard url.scheme == "https" || config.isDevelopment || ["127.0.0.1", "localhost", "::1"].contains(url.host ?? "") else {
            throw ServiceConfig.Invalid(description: "OIDC_ISSUER must be https:// outside development (or on this machine)")
        }
        guard let clientID = config.string("OIDC_CLIENT_ID"), !clientID.isEmpty else {
            throw ServiceConfig.Invalid(description: "PATRON_AUTH names oidc: OIDC_CLIENT_ID must be set")
        }
        self.issuer = issuer
        self.clientID = clientID
        clientSecret = config.string("OIDC_CLIENT_SECRET").flatMap { $0.isEmpty ? nil : $0 }
        let scopes = config.string("OIDC_SCOPES", default: "openid profile email").split(separator: " ").map(String.init)
        self.scopes = (scopes.contains("openid") ? scopes : ["openid"] + scopes).joined(separator: " ")
        typeClaim = config.string("OIDC_PATRON_TYPE_CLAIM").flatMap { $0.isEmpty ? nil : $0 }
        label = config.string("OIDC_LABEL", default: "Sign in with your library account")
        appRedirects = config.string("OIDC_APP_REDIRECTS", default: "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        for prefix in appRedirects {
            guard let url = URL(string: prefix), let scheme = url.scheme, !scheme.isEmpty, prefix.contains(":") else {
                throw ServiceConfig.Invalid(description: "OIDC_APP_REDIRECTS: \(prefix) is not a URL prefix")
            }
            // A prefix that is only a scheme of the web would send tokens to any site.
            guard !["http:", "https:", "http://", "https://"].contains(prefix.lowercased()) else {
                throw ServiceConfig.Invalid(description: "OIDC_APP_REDIRECTS: \(prefix) would let any web site receive tokens")
            }
        }
        timeout = try config.duration("OIDC_TIMEOUT", default: 5)
    }
}
