import Foundation
import NIOCore
import ServiceSupport

/// Reads a file's bytes straight into a `ByteBuffer` (no `Data` in between), in chunks small enough for the allocator
/// to reuse memory: chunks of 128 KB and more were fresh pages from the kernel each time (mmap, page faults, zeroing).
enum FileChunk {
    static let size = 64 << 10

    /// Up to `count` bytes of the file from `offset`; fewer only at its end. Bytes in the page cache are read on the
    /// calling thread (`preadv2` with `RWF_NOWAIT` never waits for a disk); any others on a blocking thread
    /// (`BlockingWork`), so that a cold or network disk never holds one of Swift's few cooperative threads. Always going
    /// to the blocking thread cost a 1 MB download from catalog 12 % of its rate (docs/PERFORMANCE.md).
    static func read(_ descriptor: Int32, at offset: Int, upTo count: Int) async throws -> ByteBuffer {
        if let cached = try read(descriptor, at: offset, upTo: count, waiting: false) { return cached }
        return try await BlockingWork.run { try read(descriptor, at: offset, upTo: count, waiting: true) ?? ByteBuffer() }
    }

    /// The bytes, or nil when `waiting` is false and some of them are not in the page cache (or the kernel cannot say).
    static func read(_ descriptor: Int32, at offset: Int, upTo count: Int, waiting: Bool) throws -> ByteBuffer? {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        var filled = 0
        do {
            while filled < count {
                let read = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count - filled) { target -> Int in
                    let position = off_t(offset + filled)
                    let result: Int
                    if waiting {
                        result = pread(descriptor, target.baseAddress, count - filled, position)
                    } else {
                        guard let preadv2 = PageCacheRead.preadv2 else { throw NotInPageCache() }
                        var vector = iovec(iov_base: target.baseAddress, iov_len: count - filled)
                        result = preadv2(descriptor, &vector, 1, position, PageCacheRead.noWait)
                        guard result >= 0 else { throw NotInPageCache() }
                    }
                    guard result >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                    return result
                }
                guard read > 0 else { break }
                filled += read
            }
        } catch is NotInPageCache {
            return nil
        }
        return buffer
    }

    private struct NotInPageCache: Error {}
}

/// `preadv2(2)`, which Swift's Glibc module does not declare, looked up once in the C library.
enum PageCacheRead {
    typealias Function = @convention(c) (Int32, UnsafePointer<iovec>?, Int32, off_t, Int32) -> Int
    static let preadv2: Function? = dlsym(nil, "preadv2").map { unsafeBitCast($0, to: Function.self) }
    /// `RWF_NOWAIT` (linux/fs.h): fail with `EAGAIN` rather than wait for the disk.
    static let noWait: Int32 = 0x08
}
