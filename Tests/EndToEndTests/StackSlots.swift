import Foundation

/// How many end-to-end stacks run at once (`TEST_STACKS_AT_ONCE`, 3): each is three services and a PostgreSQL server,
/// and sixteen of them starting together beside the rest of the suite left the test process's own threads without a
/// core for tens of seconds on a two-core machine (a live test client then gave up after its 20 s).
actor StackSlots {
    static let shared = StackSlots(limit: ProcessInfo.processInfo.environment["TEST_STACKS_AT_ONCE"].flatMap(Int.init) ?? 3)

    private let limit: Int
    private var inUse = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { self.limit = max(1, limit) }

    /// Returns once a slot is this caller's (`release` gives it back).
    func acquire() async {
        if inUse < limit {
            inUse += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            inUse -= 1
        } else {
            waiting.removeFirst().resume()  // the slot passes to the next in line
        }
    }
}
