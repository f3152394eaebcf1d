import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// A request body passed on as it arrives, that fails with `TooLarge` once more than `limit` bytes came through:
/// uploads reach the upstream without being held in the gateway's memory.
///
/// Once the upstream has answered or failed, `release()` must be awaited before the answer goes back: Hummingbird
/// then reads (and drops) what is left of the body itself, and NIO stops the process when two reads of one body wait
/// at once, which they did when the upstream hung up while its request was waiting for more of the client's upload.
struct CappedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    struct TooLarge: Error {}

    let body: RequestBody
    let limit: Int
    let reads = Reads()

    /// Whether a read of the body is under way, and whether the body was released (no read may start then).
    final class Reads: Sendable {
        private struct State {
            var started = false
            var reading = false
            var released = false
            var waiter: CheckedContinuation<Void, Never>?
        }
        private let state = NIOLockedValueBox(State())

        /// Whether the upstream request ever started reading the body: until then another replica can be sent it.
        var untouched: Bool { state.withLockedValue { !$0.started } }

        func started() { state.withLockedValue { $0.started = true } }

        /// False once released: the read must not start.
        func begin() -> Bool {
            state.withLockedValue { state in
                guard !state.released else { return false }
                state.reading = true
                return true
            }
        }

        func end() {
            let waiter = state.withLockedValue { state in
                state.reading = false
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }

        /// Lets no read start from now on, and waits for one under way (it ends when the client sends more, closes,
        /// or is cut off by the idle timeout).
        func release() async {
            await withCheckedContinuation { continuation in
                let done = state.withLockedValue { state in
                    state.released = true
                    guard state.reading else { return true }
                    state.waiter = continuation
                    return false
                }
                if done { continuation.resume() }
            }
        }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let limit: Int
        let reads: Reads
        var seen = 0

        mutating func next() async throws -> ByteBuffer? {
            // Released: the upstream request is over, and what is left of the body is Hummingbird's to drop.
            guard reads.begin() else { return nil }
            defer { reads.end() }
            guard let chunk = try await base.next() else { return nil }
            seen += chunk.readableBytes
            if seen > limit { throw TooLarge() }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        reads.started()
        return AsyncIterator(base: body.makeAsyncIterator(), limit: limit, reads: reads)
    }
}
