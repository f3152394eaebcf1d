import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport

/// Fresh PostgreSQL databases for tests, on the server `make test` starts (`TEST_DATABASE_URL`).
/// A test that needs one fails loudly when none is configured; it never skips itself.
public enum TestDatabase {
    public struct NotConfigured: Error, CustomStringConvertible {
        public var description: String { "TEST_DATABASE_URL is not set: run the tests with `make test`, which starts PostgreSQL" }
    }

    /// Creates an empty database and returns its URL.
    public static func create(prefix: String = "t") async throws -> String {
        guard let admin = ProcessInfo.processInfo.environment["TEST_DATABASE_URL"] else { throw NotConfigured() }
        let name = "\(prefix)_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased())"
        // The query may be leased before `run()` has started (they start together): PostgresNIO then warns, harmlessly.
        var logger = Logger(label: "test-db")
        logger.logLevel = .error
        let client = PostgresClient(configuration: try DatabaseURL.configuration(admin), backgroundLogger: logger)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await client.run() }
            try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
            group.cancelAll()
        }
        var components = URLComponents(string: admin)!
        components.path = "/" + name
        return components.string!
    }

    /// `body` with a running client of the database at `url`: for tests that call a repository themselves.
    public static func withClient<T: Sendable>(_ url: String, _ body: (PostgresClient, Logger) async throws -> T) async throws -> T {
        var logger = Logger(label: "test-db")
        logger.logLevel = .error
        let client = PostgresClient(configuration: try DatabaseURL.configuration(url), backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                await client.run()
                return nil
            }
            let result = try await body(client, logger)
            group.cancelAll()
            return result
        }
    }

    /// Runs `sql` on the database at `url`: for tests that need more rows than the API would make quickly.
    public static func execute(_ sql: String, on url: String) async throws {
        _ = try await query(sql, on: url)
    }

    /// The first column of every row `sql` returns, as text.
    public static func query(_ sql: String, on url: String) async throws -> [String] {
        var logger = Logger(label: "test-db")
        logger.logLevel = .error
        let client = PostgresClient(configuration: try DatabaseURL.configuration(url), backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: [String].self) { group in
            group.addTask {
                await client.run()
                return []
            }
            var values: [String] = []
            for try await row in try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger) {
                values.append(try row.makeRandomAccess()[0].decode(String.self))
            }
            group.cancelAll()
            return values
        }
    }

    /// The shared folder beside the repository (`../shared`), or `SHARED_DIR`.
    public static var sharedDirectory: URL {
        if let dir = ProcessInfo.processInfo.environment["SHARED_DIR"] { return URL(fileURLWithPath: dir) }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../shared").standardized
    }
}

/// The configuration every service test starts from: secrets for tests, fast bcrypt, and a small database pool.
/// Hundreds of test apps run at once against `make test`'s one PostgreSQL: with the services' own pools (patron 20) a
/// full run held up to 919 of its 1,000 connections, and one CI run failed a test on "too many clients already".
public enum TestConfig {
    public static let serviceToken = "test-service-token"
    public static let adminToken = "test-admin-token"
    public static let jwtSecret = "test-jwt-secret-0123456789abcdef0123456789"

    /// Enough for a test's concurrent requests to race inside PostgreSQL; a test of the pool itself sets its own.
    public static let testPoolSize = 6

    public static func base(_ overrides: [String: String] = [:]) -> ServiceConfig {
        ServiceConfig(
            environment: [:],
            overrides: [
                "SERVICE_TOKEN": serviceToken, "ADMIN_TOKEN": adminToken, "JWT_SECRET": jwtSecret, "BCRYPT_COST": "4", "LOG_LEVEL": "warning",
                "DATABASE_MAX_CONNECTIONS": "\(testPoolSize)",
                "CATALOG_URLS": "http://127.0.0.1:1", "PATRON_URLS": "http://127.0.0.1:1",
            ].merging(overrides) { $1 }
        )
    }
}
