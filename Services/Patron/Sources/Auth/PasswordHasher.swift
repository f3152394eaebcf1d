import Foundation
import HummingbirdBcrypt

/// bcrypt hashing of PINs and passwords, on `BcryptWorkers` (bcrypt is CPU-bound by design): never on an event loop,
/// and never more of it at once than the workers.
struct PasswordHasher: Sendable {
    let cost: UInt8
    let workers: BcryptWorkers

    /// A fixed hash to verify against when the login is unknown, so that the answer takes as long as for a known one.
    let decoy: String

    /// `workers` threads for bcrypt; a first check that would wait more than `maxWait` seconds is refused
    /// (`BcryptWorkers.Busy`). The decoy's hashing measures the first estimate of a check's cost.
    init(cost: Int, workers: Int, maxWait: Double) {
        self.cost = UInt8(cost)
        let started = ContinuousClock.now
        decoy = Bcrypt.hash("decoy-secret-for-unknown-logins", cost: UInt8(cost))
        let elapsed = ContinuousClock.now - started
        self.workers = BcryptWorkers(
            workers: workers,
            maxWait: maxWait,
            cost: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        )
    }

    func hash(_ secret: String) async throws -> String {
        let cost = self.cost
        return try await workers.run(.first) { Bcrypt.hash(secret, cost: cost) }
    }

    /// `priority` `.background` for a check nobody waits for (the gateway renewing a verdict it keeps).
    func verify(_ secret: String, hash: String, priority: BcryptWorkers.Priority = .first) async throws -> Bool {
        try await workers.run(priority) { Bcrypt.verify(secret, hash: hash) }
    }
}
