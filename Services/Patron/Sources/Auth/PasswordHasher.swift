import HummingbirdBcrypt
import ServiceSupport

/// bcrypt hashing of PINs and passwords, off the event loops (bcrypt is CPU-bound by design).
struct PasswordHasher: Sendable {
    let cost: UInt8

    /// A fixed hash to verify against when the login is unknown, so that the answer takes as long as for a known one.
    let decoy: String

    init(cost: Int) {
        self.cost = UInt8(cost)
        self.decoy = Bcrypt.hash("decoy-secret-for-unknown-logins", cost: UInt8(cost))
    }

    func hash(_ secret: String) async throws -> String {
        let cost = self.cost
        return try await BlockingWork.run { Bcrypt.hash(secret, cost: cost) }
    }

    func verify(_ secret: String, hash: String) async throws -> Bool {
        try await BlockingWork.run { Bcrypt.verify(secret, hash: hash) }
    }
}
