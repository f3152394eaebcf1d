import Foundation
import Synchronization
import Testing

@testable import ServiceSupport

/// `AskedInBatches`: questions asked within a moment of each other are one question to the other service, each caller
/// gets its own key's answer, and a batch that cannot be answered gives nil to all of its callers.
@Suite struct AskedInBatchesTests {
    /// The other service: it records each batch it is asked and answers each key with its length, leaving out "gone";
    /// nil for everything while it is down.
    final class Service: Sendable {
        let batches = Mutex<[[String]]>([])
        let down = Mutex(false)

        func ask(_ keys: [String]) async -> [String: Int]? {
            batches.withLock { $0.append(keys.sorted()) }
            if down.withLock({ $0 }) { return nil }
            return Dictionary(uniqueKeysWithValues: keys.filter { $0 != "gone" }.map { ($0, $0.count) })
        }
    }

    func askAll(_ keys: [String], of batches: AskedInBatches<String, Int>) async -> [Int?] {
        await withTaskGroup(of: (Int, Int?).self) { group in
            for (index, key) in keys.enumerated() { group.addTask { (index, await batches.value(for: key)) } }
            var answers = [Int?](repeating: nil, count: keys.count)
            for await (index, answer) in group { answers[index] = answer }
            return answers
        }
    }

    @Test func questionsWithinTheWindowAreOneAskAndEachGetsItsOwnAnswer() async {
        let service = Service()
        let batches = AskedInBatches<String, Int>(window: .milliseconds(300), maxKeys: 100, ask: service.ask)
        let answers = await askAll(["a", "bb", "ccc", "bb", "gone"], of: batches)
        #expect(answers == [1, 2, 3, 2, nil], "a key left out of the answer has none")
        #expect(service.batches.withLock { $0 } == [["a", "bb", "ccc", "gone"]], "one ask, each key once")
        #expect(await batches.value(for: "dddd") == 4, "a later question makes a batch of its own")
        #expect(service.batches.withLock { $0.count } == 2)
    }

    @Test func aFullBatchIsAskedAtOnce() async {
        let service = Service()
        // A window no test waits out: the three questions are asked because they fill the batch.
        let batches = AskedInBatches<String, Int>(window: .seconds(600), maxKeys: 3, ask: service.ask)
        #expect(await askAll(["a", "bb", "ccc"], of: batches) == [1, 2, 3])
        #expect(service.batches.withLock { $0 } == [["a", "bb", "ccc"]])
    }

    @Test func everyCallerOfAFailedAskGetsNoAnswer() async {
        let service = Service()
        service.down.withLock { $0 = true }
        let batches = AskedInBatches<String, Int>(window: .milliseconds(50), maxKeys: 100, ask: service.ask)
        #expect(await askAll(["a", "bb"], of: batches) == [nil, nil])
        service.down.withLock { $0 = false }
        #expect(await batches.value(for: "a") == 1, "asked again next time")
    }
}
