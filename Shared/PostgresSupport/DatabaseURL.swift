import Foundation
import PostgresNIO

/// Parses `postgres://user:password@host:port/database` (also `postgresql://`) into a client configuration.
/// TLS is not negotiated: the database is expected on a private network (see README).
public enum DatabaseURL {
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public static func configuration(_ text: String, pool: DatabasePool = DatabasePool()) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme ?? "") else {
            throw Invalid(description: "database URL must look like postgres://user:password@host:port/database (or ?host=/socket/folder)")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        let (username, password) = (components.user?.removingPercentEncoding ?? "postgres", components.password?.removingPercentEncoding)
        let port = components.port ?? 5432
        var configuration: PostgresClient.Configuration
        // As libpq: a host that is a folder (`?host=/var/run/postgresql`, or `%2F...` in the host part) is where the
        // server's Unix socket is. On one machine a socket costs a statement much less kernel time than TCP does.
        let queryHost = components.queryItems?.first { $0.name == "host" }?.value
        let host = queryHost ?? components.percentEncodedHost?.removingPercentEncoding.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        if host.hasPrefix("/") {
            let socket = "\(host.hasSuffix("/") ? String(host.dropLast()) : host)/.s.PGSQL.\(port)"
            configuration = .init(unixSocketPath: socket, username: username, password: password, database: database.isEmpty ? nil : database)
        } else {
            configuration = .init(
                host: host,
                port: port,
                username: username,
                password: password,
                database: database.isEmpty ? nil : database,
                tls: .disable
            )
        }
        pool.apply(to: &configuration.options)
        // No JIT compilation: the services' queries are short, but a search over a large catalog is estimated costly
        // enough to cross `jit_above_cost`, and compiling it took ~0.6 s of a 28 ms query at a million books.
        configuration.options.additionalStartupParameters = [("jit", "off")]
        return configuration
    }
}
