import Foundation
import NIOCore

/// Reads a file's bytes straight into a `ByteBuffer` (no `Data` in between), in chunks small enough for the allocator
/// to reuse memory: chunks of 128 KB and more were fresh pages from the kernel each time (mmap, page faults, zeroing).
enum FileChunk {
    static let size = 64 << 10

    /// Up to `count` bytes of the file from `offset`; fewer only at its end.
    static func read(_ handle: FileHandle, at offset: Int, upTo count: Int) throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        var filled = 0
        while filled < count {
            let read = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count - filled) { target in
                let result = pread(handle.fileDescriptor, target.baseAddress, count - filled, off_t(offset + filled))
                guard result >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                return result
            }
            guard read > 0 else { break }
            filled += read
        }
        return buffer
    }
}
