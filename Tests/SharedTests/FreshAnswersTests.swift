import Foundation
import Synchronization
import Testing

@testable import ServiceSupport

/// `FreshAnswers`: a key in steady use never waits for the service asked, and no answer older than its lifetime is used.
@Suite struct FreshAnswersTests {
    /// A clock that stands still until the test moves it, and a service whose answers the test numbers.
    final class World: Sendable {
        let clock = Mutex(Date(timeIntervalSince1970: 1_000_000))
        let asked = Mutex(0)
        let down = Mutex(false)

        func now() -> Date { clock.withLock { $0 } }
        func pass(_ seconds: TimeInterval) { clock.withLock { $0 += seconds } }

        /// The service: its n-th answer is n, or nil while it is down.
        func ask() async -> Int? {
            if down.withLock({ $0 }) { return nil }
            return asked.withLock {
                $0 += 1
                return $0
            }
        }
    }

    @Test func anAnswerPastHalfItsLifetimeIsGivenAtOnceAndAskedForAgainInTheBackground() async throws {
        let world = World()
        let answers = FreshAnswers<String, Int>(lifetime: 10, now: world.now)
        #expect(await answers.answer(for: "a", ask: world.ask) == 1, "the first answer is waited for")
        world.pass(4)
        #expect(await answers.answer(for: "a", ask: world.ask) == 1, "a young answer is given")
        #expect(world.asked.withLock { $0 } == 1, "and not asked for again")
        world.pass(2)
        #expect(await answers.answer(for: "a", ask: world.ask) == 1, "past half its lifetime: still the answer in hand")
        try await waitUntil { world.asked.withLock { $0 } == 2 }
        try await waitUntil { await answers.answer(for: "a", ask: world.ask) == 2 }
        #expect(world.asked.withLock { $0 } == 2, "asked once in the background")
    }

    @Test func noAnswerOlderThanItsLifetimeIsUsed() async throws {
        let world = World()
        let answers = FreshAnswers<String, Int>(lifetime: 10, now: world.now)
        #expect(await answers.answer(for: "a", ask: world.ask) == 1)
        world.pass(10.5)
        #expect(await answers.answer(for: "a", ask: world.ask) == 2, "an expired answer is asked for and waited for")
    }

    @Test func concurrentMissesShareOneAskAndAMissingAnswerIsNotRemembered() async throws {
        let world = World()
        let answers = FreshAnswers<String, Int>(lifetime: 10, now: world.now)
        world.down.withLock { $0 = true }
        #expect(await answers.answer(for: "a", ask: world.ask) == nil, "the service is down: no answer")
        world.down.withLock { $0 = false }
        let slowAsk: @Sendable () async -> Int? = {
            try? await Task.sleep(for: .milliseconds(100))
            return await world.ask()
        }
        let given = await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<20 { group.addTask { await answers.answer(for: "a", ask: slowAsk) } }
            return await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(Set(given) == [1], "twenty requests, one ask, nothing remembered from the outage")
        #expect(world.asked.withLock { $0 } == 1)
    }

    @Test func aForgottenAnswerIsAskedForAgain() async throws {
        let world = World()
        let answers = FreshAnswers<String, Int>(lifetime: 10, now: world.now)
        #expect(await answers.answer(for: "a", ask: world.ask) == 1)
        answers.forget("a")
        #expect(await answers.answer(for: "a", ask: world.ask) == 2)
        answers.forget { key, _ in key == "a" }
        #expect(await answers.answer(for: "a", ask: world.ask) == 3)
    }

    /// A PIN changed through this gateway while the patron's answer was being renewed: the renewal began before the
    /// change and answers the old stamp, which must not outlive the `forget` that followed the change.
    @Test func anAskUnderWayWhenAnswersAreForgottenIsNotRemembered() async throws {
        let world = World()
        let answers = FreshAnswers<String, Int>(lifetime: 10, now: world.now)
        let release = AsyncStream<Void>.makeStream()
        let asking = Mutex(false)
        let slowAsk: @Sendable () async -> Int? = {
            asking.withLock { $0 = true }
            for await _ in release.stream { break }
            return await world.ask()
        }
        async let first = answers.answer(for: "a", ask: slowAsk)
        try await waitUntil { asking.withLock { $0 } }
        answers.forget("a")
        release.continuation.yield()
        #expect(await first == 1, "the callers under way get the answer")
        #expect(await answers.answer(for: "a", ask: world.ask) == 2, "but it was not remembered past the forget")
    }

    @Test func aRenewalIsAskedByRenewWhenGivenAndAMissWaitsForAsk() async throws {
        let world = World()
        let renewed = Mutex(0)
        let renew: @Sendable () async -> Int? = {
            renewed.withLock {
                $0 += 1
                return 100 + $0
            }
        }
        let answers = FreshAnswers<String, Int>(lifetime: 10, now: world.now)
        #expect(await answers.answer(for: "a", ask: world.ask, renew: renew) == 1, "a miss is asked by ask")
        world.pass(6)
        #expect(await answers.answer(for: "a", ask: world.ask, renew: renew) == 1)
        try await waitUntil { await answers.answer(for: "a", ask: world.ask, renew: renew) == 101 }
        #expect(world.asked.withLock { $0 } == 1, "the renewal went to renew, not ask")
    }

    private func waitUntil(_ condition: @Sendable () async -> Bool) async throws {
        for _ in 0..<500 where !(await condition()) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await condition())
    }
}
