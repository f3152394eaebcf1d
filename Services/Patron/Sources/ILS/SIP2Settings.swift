import Foundation
import NIOSSL
import ServiceSupport

/// How patron reaches the library's ILS over SIP2 (docs/DEPLOY.md, "The library's ILS (SIP2)").
struct SIP2Settings: Sendable {
    var host: String
    var port: Int
    /// `SIP2_TLS`: TLS to the ILS (system trust roots, or `SIP2_TLS_CA_FILE`'s).
    var tls: NIOSSLContext?
    /// The SIP2 terminal's login (`93`), sent once per connection; nil when the ILS asks for none.
    var login: String?
    var password: String
    var locationCode: String
    var institution: String
    /// `SIP2_TERMINAL_PASSWORD` (`AC`), when the ILS wants one on every message.
    var terminalPassword: String
    /// `SIP2_MESSAGE`: `patron-information` (63, the default) or `patron-status` (23), for an ILS that has only one.
    var patronMessage: PatronMessage
    var encoding: SIP2Encoding
    /// `SIP2_CHECKSUMS`: the error-detection trailer (`AY`/`AZ`) on every message.
    var checksums: Bool
    var timeout: TimeInterval
    /// `SIP2_CONNECTIONS`: connections kept open to the ILS at most.
    var connections: Int
    /// `SIP2_OFFLINE_GRACE`: while the ILS cannot be reached, a card and PIN the ILS accepted at most this long ago are
    /// still let in (checked against the PIN's bcrypt kept at that sign-in); 0 turns it off.
    var offlineGrace: TimeInterval

    enum PatronMessage: String, Sendable {
        case patronInformation = "patron-information"
        case patronStatus = "patron-status"
    }

    /// nil unless `PATRON_AUTH` names `sip2`.
    init?(config: ServiceConfig, methods: Set<String>) throws {
        guard methods.contains("sip2") else { return nil }
        guard let host = config.string("SIP2_HOST") else {
            throw ServiceConfig.Invalid(description: "PATRON_AUTH names sip2: SIP2_HOST must be set")
        }
        self.host = host
        port = try config.int("SIP2_PORT", default: 6001)
        if try Self.flag(config, "SIP2_TLS", default: false) {
            var configuration = TLSConfiguration.makeClientConfiguration()
            if let file = config.string("SIP2_TLS_CA_FILE") {
                guard FileManager.default.isReadableFile(atPath: file) else {
                    throw ServiceConfig.Invalid(description: "SIP2_TLS_CA_FILE \(file) cannot be read")
                }
                configuration.trustRoots = .file(file)
            }
            do { tls = try NIOSSLContext(configuration: configuration) } catch {
                throw ServiceConfig.Invalid(description: "SIP2_TLS: \(error)")
            }
        } else {
            tls = nil
        }
        login = config.string("SIP2_LOGIN")
        password = config.string("SIP2_PASSWORD", default: "")
        locationCode = config.string("SIP2_LOCATION", default: "")
        institution = config.string("SIP2_INSTITUTION", default: "")
        terminalPassword = config.string("SIP2_TERMINAL_PASSWORD", default: "")
        let message = config.string("SIP2_MESSAGE", default: PatronMessage.patronInformation.rawValue)
        guard let patronMessage = PatronMessage(rawValue: message) else {
            throw ServiceConfig.Invalid(description: "SIP2_MESSAGE must be patron-information or patron-status")
        }
        self.patronMessage = patronMessage
        let encodingName = config.string("SIP2_ENCODING", default: SIP2Encoding.cp850.rawValue).lowercased()
        guard let encoding = SIP2Encoding(rawValue: encodingName) else {
            throw ServiceConfig.Invalid(description: "SIP2_ENCODING must be one of \(SIP2Encoding.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.encoding = encoding
        checksums = try Self.flag(config, "SIP2_CHECKSUMS", default: true)
        timeout = try config.duration("SIP2_TIMEOUT", default: 5)
        connections = try config.int("SIP2_CONNECTIONS", default: 4)
        guard connections >= 1 else { throw ServiceConfig.Invalid(description: "SIP2_CONNECTIONS must be at least 1") }
        offlineGrace = try config.duration("SIP2_OFFLINE_GRACE", default: 15 * 60)
    }

    private static func flag(_ config: ServiceConfig, _ name: String, default value: Bool) throws -> Bool {
        let text = config.string(name, default: value ? "true" : "false").lowercased()
        guard ["true", "false"].contains(text) else { throw ServiceConfig.Invalid(description: "\(name) must be true or false") }
        return text == "true"
    }
}
