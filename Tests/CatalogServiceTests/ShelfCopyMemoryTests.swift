import Foundation
import Shared
import Testing

@testable import CatalogService

/// A shelf copy in memory is used only while the replica hears every new version, and never when it is older than a
/// version announced or than the one the patron is known to have seen.
@Suite struct ShelfCopyMemoryTests {
    let patron = UUID()
    static func copy(_ version: Int64) -> ShelfCopy {
        ShelfCopy(version: version, shelf: PatronShelf(books: [], ignored: [], waitingForAction: Int(version)))
    }

    @Test func copiesAreTrustedOnlyWhileListening() {
        let memory = ShelfCopyMemory()
        memory.keep(Self.copy(3), for: patron)
        #expect(memory.lookup(patron).trusted == false, "not listening yet")
        memory.startedListening()
        #expect(memory.lookup(patron).copy == nil, "what was read before listening may have missed announcements")
        memory.keep(Self.copy(3), for: patron)
        #expect(equal(memory.lookup(patron), (Self.copy(3), true)))
        memory.stoppedListening()
        #expect(memory.lookup(patron).trusted == false)
    }

    @Test func anAnnouncedVersionRetiresOlderCopiesAndRefusesLateOnes() {
        let memory = ShelfCopyMemory()
        memory.startedListening()
        memory.keep(Self.copy(3), for: patron)
        memory.announced(4, for: patron)
        #expect(memory.lookup(patron).copy == nil)
        // A read that began before the announcement comes back with version 3: it is not kept.
        memory.keep(Self.copy(3), for: patron)
        #expect(memory.lookup(patron).copy == nil)
        memory.keep(Self.copy(4), for: patron)
        #expect(equal(memory.lookup(patron), (Self.copy(4), true)))
        memory.keep(Self.copy(2), for: patron)
        #expect(memory.lookup(patron).copy == Self.copy(4), "an older copy never replaces a newer one")
    }

    @Test func theVersionThePatronHasSeenAndASilentListenerAreNotTrusted() {
        let memory = ShelfCopyMemory(heartbeatTimeout: 6)
        let start = Date()
        memory.startedListening(now: start)
        memory.keep(Self.copy(5), for: patron)
        #expect(memory.lookup(patron, atLeast: 5, now: start).trusted)
        #expect(memory.lookup(patron, atLeast: 6, now: start).trusted == false, "the gateway says the patron has seen 6")
        #expect(memory.lookup(patron, now: start.addingTimeInterval(7)).trusted == false, "no heartbeat heard for 7 s")
        memory.heard(now: start.addingTimeInterval(7))
        #expect(memory.lookup(patron, now: start.addingTimeInterval(8)).trusted)
    }
}

extension ShelfCopyMemoryTests {
    /// Copies are held within a byte budget, whatever their number: past it the older half goes, never every copy.
    @Test func copiesStayWithinTheirBytesAndTheOlderHalfGoesFirst() {
        let large = { (version: Int64) in
            ShelfCopy(version: version, shelf: PatronShelf(books: [], ignored: (0..<500).map { _ in UUID() }, waitingForAction: 0))
        }
        let size = ShelfCopyMemory.bytes(of: large(1))
        let memory = ShelfCopyMemory(byteLimit: size * 10)
        memory.startedListening()
        let patrons = (0..<25).map { _ in UUID() }
        for patron in patrons {
            memory.keep(large(1), for: patron)
            #expect(memory.heldBytes <= size * 10)
        }
        let held = patrons.filter { memory.lookup($0).copy != nil }
        #expect(held.count >= 5, "never emptied: \(held.count) held")
        #expect(held.contains(patrons.last!) && !held.contains(patrons.first!), "the newest kept, the oldest dropped")
        // A small copy costs little: many more of them fit in the same budget.
        let small = ShelfCopyMemory(byteLimit: size * 10)
        small.startedListening()
        for patron in patrons { small.keep(Self.copy(1), for: patron) }
        #expect(patrons.allSatisfy { small.lookup($0).copy != nil })
    }

    /// Tuples are not Equatable; compare the parts.
    func equal(_ lhs: (copy: ShelfCopy?, trusted: Bool), _ rhs: (ShelfCopy?, Bool)) -> Bool { lhs.copy == rhs.0 && lhs.trusted == rhs.1 }
}
