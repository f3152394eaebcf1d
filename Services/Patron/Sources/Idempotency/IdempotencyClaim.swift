import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The `Idempotency-Key` of the request being carried out, for the transaction that makes its write to keep: the key is
/// then kept exactly when the write is (both commit or neither), and a second request with the same key, even a
/// concurrent one, finds it or waits for it (the key's unique index) instead of writing again.
final class IdempotencyClaim: Sendable {
    @TaskLocal static var current: IdempotencyClaim?

    let patronID: UUID
    let key: IdempotencyKey
    let fingerprint: [UInt8]
    private let made = Atomic<Bool>(false)

    init(patronID: UUID, key: IdempotencyKey, fingerprint: [UInt8]) {
        self.patronID = patronID
        self.key = key
        self.fingerprint = fingerprint
    }

    /// True once a write's transaction kept the key (it may still have rolled back since, failing the request).
    var isMade: Bool { made.load(ordering: .acquiring) }

    /// Keeps the current request's key inside the transaction on `connection`, its write's: once per request, nothing
    /// for a request without a key (or a background job). Throws `IdempotencyError.inFlight` when another request with
    /// the same key kept it first.
    static func make(on connection: PostgresConnection, logger: Logger) async throws {
        guard let claim = current, !claim.isMade else { return }
        try await IdempotencyPostgresRepository.keep(claim, on: connection, logger: logger)
        claim.made.store(true, ordering: .releasing)
    }
}
