import Foundation
import Logging
import ServiceSupport
import Shared
import Synchronization

/// What the gateway knows of each signed-in patron's shelf (`ShelfSummary`: the books they see differently, and the
/// shelf's version), asked of catalog and kept per patron, so that their feed pages can be joined here with the shared
/// pages the edge cache holds (`PersonalPagesMiddleware`). Concurrent questions about one patron are asked once.
///
/// How long a summary holds: while the gateway follows catalog's shelf announcements (`ShelfAnnouncementFollower`), a
/// summary stands until a newer version of that shelf is announced (within 50 ms of any change, through any gateway),
/// and at most `followedLifetime`; while it does not, for `SHARED_PAGE_VERDICT_TTL`, as a shared-page verdict did.
/// Either way a summary older than the version this gateway heard the patron's own change give
/// (`X-Internal-Shelf-Version`) is never used: the patron's next page shows their change.
final class ShelfSummaries: Sendable {
    let catalog: InternalClient
    let unfollowedLifetime: TimeInterval
    let followedLifetime: TimeInterval

    private struct Kept: Sendable {
        var summary: ShelfSummary
        var at: Date
    }

    private let kept: ExpiringAnswers<UUID, Kept>
    /// Versions announced lately, by patron: a summary asked for before an announcement and answered after it must not
    /// be kept as current.
    private let announced = ExpiringAnswers<UUID, Int64>(lifetime: 60, limit: 200_000)
    /// By patron and the least version wanted.
    private let questions = SharedTasks<String, ShelfSummary?>()
    private let following = Atomic<Bool>(false)

    init(catalog: InternalClient, unfollowedLifetime: TimeInterval, followedLifetime: TimeInterval = 300) {
        self.catalog = catalog
        self.unfollowedLifetime = unfollowedLifetime
        self.followedLifetime = followedLifetime
        kept = ExpiringAnswers(lifetime: max(unfollowedLifetime, followedLifetime), limit: 200_000)
    }

    /// The patron's summary, at least as new as `versionHeard`; nil when catalog cannot say (the caller asks catalog
    /// for the page itself).
    func summary(of patron: UUID, versionHeard: String?, logger: Logger) async -> ShelfSummary? {
        if let known = known(of: patron, versionHeard: versionHeard) { return known }
        let atLeast = least(of: patron, versionHeard: versionHeard)
        return await questions.task(for: "\(patron.lowercased)|\(atLeast)") { [catalog, kept, announced] in
            do {
                let asked = Date()
                let summary = try await catalog.get(
                    InternalRoute.shelfCopy(patron).path,
                    as: ShelfSummary.self,
                    headers: atLeast > 0 ? [(InternalHeader.shelfVersion, String(atLeast))] : [],
                    logger: logger
                )
                if summary.version >= announced[patron] ?? 0 { kept.remember(Kept(summary: summary, at: asked), for: patron) }
                return summary
            } catch {
                logger.debug("Shelf summary unavailable; catalog answers the page", metadata: ["error": "\(error)"])
                return nil
            }
        }.value
    }

    /// The patron's summary when one at least as new as `versionHeard` is kept and still stands, without waiting; nil
    /// when catalog must be asked (`summary`). Every signed-in page asks this first.
    func known(of patron: UUID, versionHeard: String?) -> ShelfSummary? {
        guard let known = kept[patron], known.summary.version >= least(of: patron, versionHeard: versionHeard),
            Date().timeIntervalSince(known.at) < (following.load(ordering: .relaxed) ? followedLifetime : unfollowedLifetime)
        else { return nil }
        return known.summary
    }

    /// The least version of the patron's shelf a summary must have: the one this gateway heard them make, or one
    /// announced since.
    private func least(of patron: UUID, versionHeard: String?) -> Int64 {
        max(versionHeard.flatMap { Int64($0) } ?? 0, announced[patron] ?? 0)
    }

    /// Catalog announced `version` of the patron's shelf: what is kept of an older one no longer holds.
    func announce(_ version: Int64, of patron: UUID) {
        if (announced[patron] ?? 0) < version { announced.remember(version, for: patron) }
        if let known = kept[patron], known.summary.version < version { kept.forget(patron) }
    }

    /// Whether announcements are followed now: while they are not, a summary holds only `unfollowedLifetime`.
    func setFollowing(_ now: Bool) { following.store(now, ordering: .relaxed) }

    /// Forgets every summary: announcements may have been missed.
    func forgetAll() { kept.forget { _, _ in true } }
}
