import Foundation
import Synchronization

/// The replicas of one upstream service, handed out round-robin. A replica that refused a connection is
/// skipped for `downFor` seconds, then tried again.
final class Upstream: Sendable {
    let name: String
    let replicas: [String]
    let downFor: TimeInterval
    private let next = Atomic<Int>(0)
    private let downUntil: Mutex<[Date]>

    init(name: String, replicas: [String], downFor: TimeInterval) {
        self.name = name
        self.replicas = replicas
        self.downFor = downFor
        self.downUntil = Mutex(Array(repeating: .distantPast, count: replicas.count))
    }

    /// The replicas to try, in order: the live ones starting at the round-robin position.
    func candidates(now: Date = Date()) -> [String] {
        let start = next.add(1, ordering: .relaxed).oldValue
        let down = downUntil.withLock { $0 }
        return (0..<replicas.count).map { (start + $0) % replicas.count }.filter { down[$0] <= now }.map { replicas[$0] }
    }

    func markDown(_ replica: String) {
        guard let index = replicas.firstIndex(of: replica) else { return }
        downUntil.withLock { $0[index] = Date().addingTimeInterval(downFor) }
    }

    func markUp(_ replica: String) {
        guard let index = replicas.firstIndex(of: replica) else { return }
        downUntil.withLock { $0[index] = .distantPast }
    }
}
