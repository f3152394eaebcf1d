import Foundation
import Hummingbird
import NIOCore

/// A response body of bytes `range` of a stored file, read chunk by chunk as the client takes them (at most one chunk
/// in memory): a book's download and a PDF read in place.
enum FileRangeBody {
    /// `completed` runs once the last byte of the range was written; `broken` when sending broke off (the client
    /// went away, which cancels the writing task: `broken` must not await).
    static func make(
        _ url: URL,
        range: Range<Int>,
        completed: @escaping @Sendable () async -> Void = {},
        broken: @escaping @Sendable () -> Void = {}
    ) throws -> ResponseBody {
        let handle = try FileHandle(forReadingFrom: url)
        let length = range.count
        return ResponseBody(contentLength: length) { writer in
            defer { try? handle.close() }
            do {
                var remaining = length
                var offset = range.lowerBound
                while remaining > 0 {
                    let chunk = try await FileChunk.read(handle.fileDescriptor, at: offset, upTo: min(remaining, FileChunk.size))
                    guard chunk.readableBytes > 0 else { break }
                    remaining -= chunk.readableBytes
                    offset += chunk.readableBytes
                    try await writer.write(chunk)
                }
                if remaining == 0 { await completed() }
            } catch {
                broken()
                throw error
            }
            try await writer.finish(nil)
        }
    }
}
