import Hummingbird
import NIOCore
import Synchronization

extension ResponseBody {
    /// The body's bytes, gathered as it is written: for a middleware that keeps an answer (patron's idempotency keys)
    /// or reads a small one (the gateway's page splices). Only for bodies known to be small.
    public consuming func collected() async throws -> ByteBuffer {
        let collector = BodyCollector()
        try await write(collector)
        return collector.buffer.withLock { $0 }
    }
}

private final class BodyCollector: ResponseBodyWriter, Sendable {
    let buffer = Mutex(ByteBuffer())

    func write(_ part: ByteBuffer) async throws {
        var part = part
        buffer.withLock { _ = $0.writeBuffer(&part) }
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
