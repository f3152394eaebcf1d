import Foundation
import Logging
import PostgresNIO

/// Limits failed sign-ins per login and per client address with exponential back-off, in the database so that
/// every replica agrees. A login is throttled the same way whether or not it exists.
struct LoginThrottle: Sendable {
    let client: PostgresClient
    /// Failures allowed before the back-off starts.
    let freeFailures = 5
    /// The first lock, in seconds, doubled at each further failure.
    let firstLock = 30
    /// The longest lock.
    let maximumLock = 900

    static func keys(login: String, clientAddress: String?) -> [String] {
        ["login:" + login.lowercased()] + (clientAddress.map { ["address:" + $0] } ?? [])
    }

    /// Seconds to wait before the next attempt, or nil when an attempt may be made now.
    func retryAfter(keys: [String], logger: Logger) async throws -> Int? {
        let rows = try await client.query(
            "SELECT ceil(extract(epoch FROM max(blocked_until) - now()))::int FROM login_throttle WHERE key = ANY(\(keys)) AND blocked_until > now()",
            logger: logger)
        for try await seconds in rows.decode(Int?.self) { return seconds }
        return nil
    }

    /// Records a failure; returns the lock in seconds it starts, if any.
    @discardableResult
    func recordFailure(keys: [String], logger: Logger) async throws -> Int? {
        var longest: Int?
        for key in keys {
            let rows = try await client.query(
                """
                INSERT INTO login_throttle AS t (key, failures) VALUES (\(key), 1)
                ON CONFLICT (key) DO UPDATE SET
                    failures = CASE WHEN t.updated_at < now() - interval '1 day' THEN 1 ELSE t.failures + 1 END, updated_at = now()
                RETURNING failures
                """, logger: logger)
            var failures = 0
            for try await value in rows.decode(Int.self) { failures = value }
            guard failures >= freeFailures else { continue }
            let seconds = min(maximumLock, firstLock << min(20, failures - freeFailures))
            try await client.query(
                "UPDATE login_throttle SET blocked_until = now() + make_interval(secs => \(Double(seconds))) WHERE key = \(key)", logger: logger)
            longest = max(longest ?? 0, seconds)
        }
        return longest
    }

    /// Clears the login's failures after a successful sign-in (the address keeps its record).
    func recordSuccess(login: String, logger: Logger) async throws {
        try await client.query("DELETE FROM login_throttle WHERE key = \("login:" + login.lowercased())", logger: logger)
    }
}
