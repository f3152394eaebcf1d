import Foundation
import PostgresNIO

/// Parses `postgres://user:password@host:port/database` (also `postgresql://`) into a client configuration.
/// TLS is not negotiated: the database is expected on a private network (see README).
public enum DatabaseURL {
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public static func configuration(_ text: String, pool: DatabasePool = DatabasePool()) throws -> PostgresClient.Configuration {
        let server = try Server(text)
        var configuration: PostgresClient.Configuration
        if let socket = server.socket {
            configuration = .init(unixSocketPath: socket, username: server.username, password: server.password, database: server.database)
        } else {
            configuration = .init(
                host: server.host,
                port: server.port,
                username: server.username,
                password: server.password,
                database: server.database,
                tls: .disable
            )
        }
        pool.apply(to: &configuration.options)
        // No JIT compilation: the services' queries are short, but a search over a large catalog is estimated costly
        // enough to cross `jit_above_cost`, and compiling it took ~0.6 s of a 28 ms query at a million books.
        configuration.options.additionalStartupParameters = [("jit", "off")]
        return configuration
    }

    /// One connection to the same server, outside any pool (`DatabaseWatch`).
    public static func connectionConfiguration(_ text: String) throws -> PostgresConnection.Configuration {
        let server = try Server(text)
        if let socket = server.socket {
            return .init(unixSocketPath: socket, username: server.username, password: server.password, database: server.database)
        }
        return .init(
            host: server.host,
            port: server.port,
            username: server.username,
            password: server.password,
            database: server.database,
            tls: .disable
        )
    }

    /// Where the URL says the server is, and who to be there.
    private struct Server {
        var host: String
        var port: Int
        /// The server's Unix socket, when the host is a folder.
        var socket: String?
        var username: String
        var password: String?
        var database: String?

        init(_ text: String) throws {
            guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme ?? "") else {
                throw Invalid(description: "database URL must look like postgres://user:password@host:port/database (or ?host=/socket/folder)")
            }
            let database = String(components.path.drop(while: { $0 == "/" }))
            self.database = database.isEmpty ? nil : database
            username = components.user?.removingPercentEncoding ?? "postgres"
            password = components.password?.removingPercentEncoding
            port = components.port ?? 5432
            // As libpq: a host that is a folder (`?host=/var/run/postgresql`, or `%2F...` in the host part) is where the
            // server's Unix socket is. On one machine a socket costs a statement much less kernel time than TCP does.
            let queryHost = components.queryItems?.first { $0.name == "host" }?.value
            host = queryHost ?? components.percentEncodedHost?.removingPercentEncoding.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
            socket = host.hasPrefix("/") ? "\(host.hasSuffix("/") ? String(host.dropLast()) : host)/.s.PGSQL.\(port)" : nil
        }
    }
}
