import Dispatch
import Foundation
import NIOCore
import Synchronization
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
    private let credits = DispatchSemaphore(value: window)
    private let cancelled = Flag()

    private struct Finished: Error {}
    private final class Flag: Sendable {
        let raised = Atomic<Bool>(false)
    }
    /// The archive moves to the inflating thread, which alone uses it from then on.
    private struct Handed<Value>: @unchecked Sendable { let value: Value }

    init(archive: Archive, entry: ZIPFoundation.Entry, path: String, range: Range<Int>, obfuscation: FontObfuscation?) {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ByteBuffer.self)
        self.stream = stream
        let handed = Handed(value: (archive, entry))
        let declared = Int(entry.uncompressedSize)
        continuation.onTermination = { [cancelled, credits] _ in
            cancelled.raised.store(true, ordering: .relaxed)
            credits.signal()
        }
        Thread.detachNewThread { [cancelled, credits] in
            let (archive, entry) = handed.value
            var position = 0
            do {
                guard !range.isEmpty else { throw Finished() }
                _ = try archive.extract(entry, bufferSize: Self.chunkSize, skipCRC32: true) { chunk in
                    if cancelled.raised.load(ordering: .relaxed) { throw CancellationError() }
                    let start = position
                    position += chunk.count
                    if position > declared { throw EPUBError.zipBomb("\(path) expands beyond its declared size") }
                    let lower = max(start, range.lowerBound)
                    let upper = min(position, range.upperBound)
                    if lower < upper {
                        var piece = chunk.subdata(in: (lower - start)..<(upper - start))
                        obfuscation?.apply(to: &piece, at: lower)
                        credits.wait()
                        if cancelled.raised.load(ordering: .relaxed) { throw CancellationError() }
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
    func taken() { credits.signal() }
}
