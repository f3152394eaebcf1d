import Hummingbird
import NIOCore

/// A request body passed on as it arrives, that fails with `TooLarge` once more than `limit` bytes came through:
/// uploads reach the upstream without being held in the gateway's memory.
struct CappedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    struct TooLarge: Error {}

    let body: RequestBody
    let limit: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let limit: Int
        var seen = 0

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else { return nil }
            seen += chunk.readableBytes
            if seen > limit { throw TooLarge() }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: body.makeAsyncIterator(), limit: limit) }
}
