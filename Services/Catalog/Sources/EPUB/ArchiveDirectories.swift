import Foundation
import ServiceSupport
import Synchronization

/// The checked central directories of stored EPUBs, by blob hash, so that a reader paging through a book does not
/// re-read and re-check the directory for every resource. Bounded by the entries it holds (a directory may list
/// thousands); past the bound, directories are dropped oldest first.
final class ArchiveDirectories: Sendable {
    let maxEntries: Int
    private let state = Mutex<(directories: [String: SafeArchive.Directory], order: [String], entries: Int)>(([:], [], 0))

    init(maxEntries: Int = 200_000) { self.maxEntries = maxEntries }

    /// The checked central directory of blob `sha256` stored at `url`: kept from before, or read (on a blocking thread,
    /// `BlockingWork`) and kept.
    func directory(sha256: String, at url: URL, limits: SafeArchive.Limits = SafeArchive.Limits()) async throws -> SafeArchive.Directory {
        if let directory = state.withLock({ $0.directories[sha256] }) { return directory }
        let directory = try await BlockingWork.run { try SafeArchive(url: url, limits: limits).directory }
        let size = directory.entries.count
        state.withLock { state in
            guard state.directories[sha256] == nil, size <= maxEntries else { return }
            while state.entries + size > maxEntries, !state.order.isEmpty {
                let oldest = state.order.removeFirst()
                state.entries -= state.directories.removeValue(forKey: oldest)?.entries.count ?? 0
            }
            state.directories[sha256] = directory
            state.order.append(sha256)
            state.entries += size
        }
        return directory
    }

    var count: Int { state.withLock { $0.directories.count } }
}
