import Foundation
import Shared
import Testing

@testable import CatalogService

/// The shelf versions a catalog replica heard, numbered for the gateways that follow them: a follower reads what it
/// has not seen, in order; one of another epoch, or further behind than what is kept, is told to forget (reset).
@Suite struct ShelfAnnouncementLogTests {
    let ann = UUID()
    let bob = UUID()

    @Test func aFollowerReadsWhatItHasNotSeenInOrder() {
        let log = ShelfAnnouncementLog()
        let first = log.read(epoch: nil, after: 0)
        #expect(first.reset && first.changes.isEmpty, "a new follower starts from a reset")
        #expect(!log.hasNews(epoch: first.epoch, after: first.next))
        log.append(patron: ann, version: 3)
        log.append(patron: bob, version: 7)
        #expect(log.hasNews(epoch: first.epoch, after: first.next))
        let second = log.read(epoch: first.epoch, after: first.next)
        #expect(!second.reset)
        #expect(second.changes == [.init(patron: ann, version: 3), .init(patron: bob, version: 7)])
        log.append(patron: ann, version: 4)
        let third = log.read(epoch: second.epoch, after: second.next)
        #expect(third.changes == [.init(patron: ann, version: 4)] && third.next == second.next + 1)
        #expect(log.read(epoch: third.epoch, after: third.next).changes.isEmpty)
    }

    @Test func aNewEpochOrAFollowerTooFarBehindIsReset() {
        let log = ShelfAnnouncementLog(capacity: 4)
        let start = log.read(epoch: nil, after: 0)
        for version in 1...10 { log.append(patron: ann, version: Int64(version)) }
        let behind = log.read(epoch: start.epoch, after: start.next)
        #expect(behind.reset, "six announcements were dropped: the follower cannot know what it missed")
        let caughtUp = log.read(epoch: behind.epoch, after: behind.next)
        #expect(!caughtUp.reset && caughtUp.changes.isEmpty)
        log.newEpoch()
        #expect(log.hasNews(epoch: caughtUp.epoch, after: caughtUp.next), "a new epoch is news")
        let renewed = log.read(epoch: caughtUp.epoch, after: caughtUp.next)
        #expect(renewed.reset && renewed.epoch != caughtUp.epoch)
        #expect(log.read(epoch: caughtUp.epoch, after: 99).reset, "a number past the newest is not believed")
    }

    @Test func aLongWayBehindIsReadInParts() {
        let log = ShelfAnnouncementLog()
        let start = log.read(epoch: nil, after: 0)
        for version in 1...25 { log.append(patron: bob, version: Int64(version)) }
        let part = log.read(epoch: start.epoch, after: start.next, limit: 10)
        #expect(part.changes.map(\.version) == Array(1...10) && part.next == 10)
        let rest = log.read(epoch: part.epoch, after: part.next, limit: 100)
        #expect(rest.changes.map(\.version) == Array(11...25))
    }
}
