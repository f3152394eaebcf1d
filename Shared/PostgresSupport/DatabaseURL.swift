import Foundation
import PostgresNIO

/// Parses `postgres://user:password@host:port/database` (also `postgresql://`) into a client configuration.
/// TLS is not negotiated: the database is expected on a private network (see README).
public enum DatabaseURL {
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public static func configuration(_ text: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme ?? "") else {
            throw Invalid(description: "database URL must look like postgres://user:password@host:port/database")
        }
        let host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        let database = String(components.path.drop(while: { $0 == "/" }))
        var configuration = PostgresClient.Configuration(
            host: host,
            port: components.port ?? 5432,
            username: components.user?.removingPercentEncoding ?? "postgres",
            password: components.password?.removingPercentEncoding,
            database: database.isEmpty ? nil : database,
            tls: .disable
        )
        configuration.options.minimumConnections = 0
        configuration.options.maximumConnections = 20
        // No JIT compilation: the services' queries are short, but a search over a large catalog is estimated costly
        // enough to cross `jit_above_cost`, and compiling it took ~0.6 s of a 28 ms query at a million books.
        configuration.options.additionalStartupParameters = [("jit", "off")]
        return configuration
    }
}
