import Foundation
import NIOCore
import ZIPFoundation

/// One archive entry's bytes in a range, as `ByteBuffer`s. ZIPFoundation inflates by pushing chunks into a
/// closure, so the inflating runs on a thread of its own and waits whenever `window` chunks are sent but not yet
/// taken (`taken()`): memory stays at a few chunks however large the entry and however slow the reader. Reading
/// stops at the range's end, at the entry's declared size (a lying entry is an error), and when the consumer goes
/// away.
final class EntryChunks: Sendable {
    static let chunkSize = 64 << 10
    static let window = 4

    let stream: AsyncThrowingStream<ByteBuffer, any Error>
    private let credits = Credits(window)
    /// The inflating thread has ended (read by tests: a reader that goes away must not leave it waiting).
    var inflatingEnded: Bool { credits.isEnded }

    private struct Finished: Error {}

    init(archive: Archive, entry: ZIPFoundation.Entry, path: String, range: Range<Int>, obfuscation: FontObfuscation?) {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ByteBuffer.self)
        self.stream = stream
        let handed = HandedOver((archive, entry))  // the inflating thread alone uses the archive from here on
        let declared = Int(entry.uncompressedSize)
        continuation.onTermination = { [credits] _ in credits.close() }
        Thread.detachNewThread { [credits] in
            defer { credits.end() }
            let (archive, entry) = handed.value
            var position = 0
            do {
                guard !range.isEmpty else { throw Finished() }
                _ = try archive.extract(entry, bufferSize: Self.chunkSize, skipCRC32: true) { chunk in
                    let start = position
                    position += chunk.count
                    if position > declared { throw EPUBError.zipBomb("\(path) expands beyond its declared size") }
                    let lower = max(start, range.lowerBound)
                    let upper = min(position, range.upperBound)
                    if lower < upper {
                        var piece = chunk.subdata(in: (lower - start)..<(upper - start))
                        obfuscation?.apply(to: &piece, at: lower)
                        guard credits.acquire() else { throw CancellationError() }
                        continuation.yield(ByteBuffer(bytes: piece))
                    }
                    if position >= range.upperBound { throw Finished() }
                }
                continuation.finish()
            } catch is Finished {
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
    }

    /// The consumer has taken a chunk: the inflating thread may send one more.
    func taken() { credits.release() }

    /// The consumer is done (whole or cut off): the inflating thread stops at its next chunk, and does not wait for
    /// the stream to be freed.
    func stop() { credits.close() }

    /// How many chunks the inflating thread may send ahead; closed when the consumer is gone. (Not a
    /// `DispatchSemaphore`: libdispatch traps when one is freed below its starting value, as a cut-off read leaves it.)
    private final class Credits: @unchecked Sendable {
        private let condition = NSCondition()
        private var available: Int
        private var closed = false
        private var ended = false

        init(_ available: Int) { self.available = available }

        /// Takes a credit, waiting for one; false once closed.
        func acquire() -> Bool {
            condition.lock()
            defer { condition.unlock() }
            while available == 0, !closed { condition.wait() }
            guard !closed else { return false }
            available -= 1
            return true
        }

        func release() {
            condition.lock()
            available += 1
            condition.signal()
            condition.unlock()
        }

        func end() {
            condition.lock()
            ended = true
            condition.unlock()
        }

        var isEnded: Bool {
            condition.lock()
            defer { condition.unlock() }
            return ended
        }

        func close() {
            condition.lock()
            closed = true
            condition.broadcast()
            condition.unlock()
        }
    }
}
