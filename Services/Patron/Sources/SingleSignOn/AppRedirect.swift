import Foundation
import Shared

/// Where a sign-in through the library's identity provider sends the app back: the address the app asked for, allowed
/// only when it is this library's own (the web app) or starts with one of `OIDC_APP_REDIRECTS` (an app's scheme), so
/// that tokens never go to a stranger's page. Tokens and errors travel in the fragment (Authentication for OPDS'
/// implicit flow), which browsers do not send to servers.
struct AppRedirect: Equatable, Sendable {
    let url: String

    init?(_ requested: String, publicURL: String, allowedPrefixes: [String]) {
        // A fragment is ours to write; spaces, backslashes and control characters are ways to confuse URL parsers.
        guard requested.count <= 2048, !requested.contains("#"), !requested.contains("\\"),
            !requested.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }),
            let url = URLComponents(string: requested), let scheme = url.scheme?.lowercased()
        else { return nil }
        if ["http", "https"].contains(scheme) {
            guard url.user == nil, url.password == nil, let own = URLComponents(string: publicURL),
                scheme == own.scheme?.lowercased(), url.host?.lowercased() == own.host?.lowercased(), url.port == own.port
            else { return nil }
        } else {
            guard allowedPrefixes.contains(where: { requested.hasPrefix($0) }) else { return nil }
        }
        self.url = requested
    }

    /// The address with `fields` as its fragment, encoded as a query is.
    func with(_ fields: [(String, String)]) -> String {
        url + "#" + fields.reduce(into: QueryString()) { $0.add($1.0, $1.1) }.description
    }
}
