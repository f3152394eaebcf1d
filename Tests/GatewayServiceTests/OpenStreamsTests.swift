import Foundation
import Testing

@testable import GatewayService

/// The event streams' places on a gateway: per patron and in all, and given back with the last reference to a place,
/// also when the response that held it was never written (a client that left before the headers).
@Suite struct OpenStreamsTests {
    typealias OpenStreams = ResponseSlots
    static let names = ResponseSlots.Names(
        plural: "event streams",
        ownerFullSlug: "too-many-streams",
        gatewayFullSlug: "streams-full",
        retryAfter: 30
    )

    @Test func aPatronHasAtMostTheirShareAndTheGatewayAtMostItsTotal() throws {
        let streams = OpenStreams(perOwner: 2, total: 3, names: Self.names)
        let (alice, bob) = (UUID(), UUID())
        let held = [try streams.claim(alice).get(), try streams.claim(alice).get()]
        guard case .failure(.ownerFull) = streams.claim(alice) else {
            Issue.record("a third stream of one patron's")
            return
        }
        let bobs = try streams.claim(bob).get()
        guard case .failure(.gatewayFull) = streams.claim(UUID()) else {
            Issue.record("a stream past the total")
            return
        }
        #expect(streams.count == 3 && bobs.owner == bob)
        withExtendedLifetime(held) {}
    }

    @Test func aPlaceNoResponseHoldsAnyMoreIsGivenBack() throws {
        let streams = OpenStreams(perOwner: 1, total: 10, names: Self.names)
        let alice = UUID()
        // A response body that captured the place, dropped unwritten.
        var body: (@Sendable () -> Void)? = { [slot = try streams.claim(alice).get()] in _ = slot }
        #expect(streams.count(of: alice) == 1)
        body = nil
        #expect(body == nil && streams.count(of: alice) == 0 && streams.count == 0)
        #expect((try? streams.claim(alice).get()) != nil)
    }
}
