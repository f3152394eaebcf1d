import Foundation
import Glibc
import NIOCore
import Testing

@testable import CatalogService

/// A download's chunks: read on the calling thread only when the page cache has them, otherwise on a blocking thread,
/// the same bytes either way.
@Suite struct FileChunkTests {
    @Test func bytesInAndOutOfThePageCacheReadTheSame() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("chunks-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        let data = Data((0..<(1 << 20) + 1234).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 9) })
        try data.write(to: url)
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let descriptor = handle.fileDescriptor
        func chunks(from start: Int) async throws -> Data {
            var read = Data()
            while start + read.count < data.count {
                var chunk = try await FileChunk.read(descriptor, at: start + read.count, upTo: FileChunk.size)
                guard chunk.readableBytes > 0 else { break }
                read.append(contentsOf: chunk.readBytes(length: chunk.readableBytes) ?? [])
            }
            return read
        }
        #expect(PageCacheRead.preadv2 != nil, "the C library has preadv2")
        #expect(try await chunks(from: 0) == data, "from the page cache")
        #expect(try await chunks(from: 70_000) == data[70_000...], "from an offset that is no chunk's start")

        // Out of the page cache (written to disk, then dropped): a read that does not wait finds nothing (on a disk
        // file system; on tmpfs the pages are the file), and the chunks come from the blocking thread.
        fsync(descriptor)
        #expect(posix_fadvise(descriptor, 0, 0, Int32(POSIX_FADV_DONTNEED)) == 0)
        // Asked before the read: a read that does not wait starts the kernel's read-ahead.
        let resident = try Self.isResident(descriptor, bytes: data.count, page: (512 << 10) / Int(sysconf(Int32(_SC_PAGESIZE))))
        let notWaiting = try FileChunk.read(descriptor, at: 512 << 10, upTo: FileChunk.size, waiting: false)
        let expected = ByteBuffer(bytes: data[(512 << 10)..<(576 << 10)])
        if resident {
            #expect(notWaiting == expected, "tmpfs: the pages are the file")
        } else {
            // The bytes were not in memory a moment before: a read that does not wait finds none, unless the kernel's
            // read-ahead of the reads above brought them back in between (seen once on a loaded machine); never others.
            #expect(notWaiting == nil || notWaiting == expected, "a read that does not wait finds nothing, or the very bytes")
        }
        #expect(try await chunks(from: 0) == data, "from the disk")
        let end = try await FileChunk.read(descriptor, at: data.count, upTo: FileChunk.size)
        #expect(end.readableBytes == 0, "nothing past the end")
    }

    /// Whether page `page` of the file is in memory (`mincore` over a mapping of it).
    static func isResident(_ descriptor: Int32, bytes: Int, page: Int) throws -> Bool {
        let mapping = try #require(mmap(nil, bytes, PROT_READ, MAP_SHARED, descriptor, 0))
        defer { munmap(mapping, bytes) }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        var resident = [UInt8](repeating: 0, count: (bytes + pageSize - 1) / pageSize)
        #expect(mincore(mapping, bytes, &resident) == 0)
        return resident[page] & 1 == 1
    }
}
