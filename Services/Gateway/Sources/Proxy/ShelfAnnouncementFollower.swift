import Foundation
import Logging
import ServiceLifecycle
import ServiceSupport
import Shared

/// Follows one catalog replica's shelf announcements (`GET /internal/shelf-announcements`, answered as soon as there
/// is news, else after 20 s) and tells `ShelfSummaries` of every new version, so that what the gateway keeps of a
/// patron's shelf holds until it changes. One replica at a time: each numbers what it heard in an epoch of its own, so
/// a move to another (the first did not answer) starts again from a reset, which forgets every summary. While no
/// replica answers, or the one followed cannot hear every announcement, summaries hold only briefly.
struct ShelfAnnouncementFollower: Service {
    let replicas: [InternalClient]
    let summaries: ShelfSummaries
    let logger: Logger

    init(catalogURLs: [String], token: ServiceToken, summaries: ShelfSummaries, logger: Logger) {
        // Past the 20 s catalog may hold the question open.
        replicas = catalogURLs.map { InternalClient(baseURLs: [$0], token: token, timeout: .seconds(30)) }
        self.summaries = summaries
        self.logger = logger
    }

    func run() async throws {
        await cancelWhenGracefulShutdown { await follow() }
        summaries.setFollowing(false)
    }

    private func follow() async {
        var replica = 0
        var epoch: String?
        var after: Int64 = 0
        var failures = 0
        while !Task.isCancelled {
            do {
                let path = InternalRoute.shelfAnnouncements.path + "?after=\(after)" + (epoch.map { "&epoch=\($0)" } ?? "")
                let news = try await replicas[replica].get(path, as: ShelfAnnouncements.self, logger: logger)
                if news.reset { summaries.forgetAll() }
                for change in news.changes { summaries.announce(change.version, of: change.patron) }
                summaries.setFollowing(news.current)
                (epoch, after) = (news.epoch, news.next)
                if failures > 0 { logger.notice("Following shelf announcements again", metadata: ["failures": "\(failures)"]) }
                failures = 0
                // A replica that cannot hear every announcement answers at once: look again in a second.
                if !news.current { try? await Task.sleep(for: .seconds(1)) }
            } catch {
                if Task.isCancelled { break }
                summaries.setFollowing(false)
                failures += 1
                if failures == 1 || failures % 60 == 0 {
                    logger.warning("Not following shelf announcements; signed-in pages ask catalog more often", metadata: ["error": "\(error)"])
                }
                replica = (replica + 1) % replicas.count
                epoch = nil
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}
