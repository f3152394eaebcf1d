import Foundation
import Shared

/// Configuration read from environment variables (`CATALOG_PORT`, `SERVICE_TOKEN`, ...), with overrides for tests.
///
/// Keys are the upper-case environment variable names of the README's configuration table. Durations accept
/// plain seconds or a number with `s`, `m`, `h` or `d`.
public struct ServiceConfig: Sendable {
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    public let values: [String: String]

    /// The process environment, with `overrides` taking precedence.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, overrides: [String: String] = [:]) {
        self.values = environment.merging(overrides) { $1 }
    }

    public func string(_ key: String) -> String? {
        values[key].flatMap { $0.isEmpty ? nil : $0 }
    }

    public func string(_ key: String, default value: String) -> String { string(key) ?? value }

    /// A secret with no default: refuses to start without it, and with a published example value (`PublishedSecrets`)
    /// unless `BOOKMOBILE_ENV=development`.
    public func secret(_ key: String) throws -> String {
        guard let value = string(key) else { throw Invalid(description: "\(key) must be set") }
        if PublishedSecrets.contains(value) && !isDevelopment {
            throw Invalid(
                description: "\(key) is a published example value; set it to a secret of your own (for example the output of "
                    + "`openssl rand -hex 32`), or set BOOKMOBILE_ENV=development to accept example secrets on a development machine"
            )
        }
        return value
    }

    /// `BOOKMOBILE_ENV=development` (what `make run` and `.env.example` set): published example secrets are accepted.
    public var isDevelopment: Bool { string("BOOKMOBILE_ENV") == "development" }

    /// The address the HTTP server listens on: `BIND_ADDRESS`, else loopback only. Containers set `0.0.0.0`.
    public var bindAddress: String { string("BIND_ADDRESS", default: "127.0.0.1") }

    public func int(_ key: String, default value: Int) throws -> Int {
        guard let text = string(key) else { return value }
        guard let number = Int(text) else { throw Invalid(description: "\(key) must be a whole number, got \(text)") }
        return number
    }

    /// Seconds, from `90`, `90s`, `15m`, `2h` or `21d`.
    public func duration(_ key: String, default value: TimeInterval) throws -> TimeInterval {
        guard let text = string(key) else { return value }
        guard let seconds = DurationText.seconds(text) else { throw Invalid(description: "\(key) must be a duration like 90, 15m, 2h or 21d") }
        return seconds
    }

    /// Comma-separated base URLs (`CATALOG_URLS=http://a:8081,http://b:8081`), without trailing slashes.
    public func urls(_ key: String, default value: String) -> [String] {
        string(key, default: value).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.map {
            $0.hasSuffix("/") ? String($0.dropLast()) : $0
        }
    }
}
