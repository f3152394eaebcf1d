import Testing

@testable import GatewayService

/// The first fetches of held files, by path.
@Suite struct FirstFetchesTests {
    /// A fetch older than the patience is taken over; the old one ending later leaves the newer one's entry (and its
    /// waiters) alone.
    @Test func aFetchTakenOverEndsOnlyItsOwnEntry() async throws {
        // A patience long enough that the checks between the takeover and the ends never outlast it on a loaded machine.
        let fetches = FirstFetches(patience: .seconds(1))
        let old = try #require(fetches.begin("/books/x/fulfill"))
        #expect(fetches.begin("/books/x/fulfill") == nil, "under way")
        try await Task.sleep(for: .milliseconds(1_100))
        let new = try #require(fetches.begin("/books/x/fulfill"), "taken over after the patience")
        old.end()
        #expect(fetches.begin("/books/x/fulfill") == nil, "the old fetch's end left the new one under way")
        new.end()
        let next = fetches.begin("/books/x/fulfill")
        #expect(next != nil, "ended")
        next?.end()
    }
}
