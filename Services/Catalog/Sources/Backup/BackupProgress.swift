import Foundation

/// A progress line on the terminal at most once a second, and one at the end.
final class BackupProgress: @unchecked Sendable {
    private let what: String
    private let total: Int
    private let lock = NSLock()
    private var done = 0
    private var bytes: Int64 = 0
    private var printed = Date.distantPast
    private let start = Date()

    init(_ what: String, total: Int) {
        self.what = what
        self.total = total
    }

    func advance(bytes more: Int64) {
        lock.withLock {
            done += 1
            bytes += more
            guard Date().timeIntervalSince(printed) >= 1 || done == total else { return }
            printed = Date()
            print(summary)
        }
    }

    var summary: String {
        String(format: "%@: %d of %d, %.1f MB, %.0f s", what, done, total, Double(bytes) / 1_048_576, Date().timeIntervalSince(start))
    }
}
