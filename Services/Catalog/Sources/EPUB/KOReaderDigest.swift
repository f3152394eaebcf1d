import Crypto
import Foundation
import Shared

/// KOReader's name for a file (`util.partialMD5` in koreader's `frontend/util.lua`): the MD5 of 1,024-byte samples
/// read at 0, 1 KiB, 4 KiB, 16 KiB … 1 GiB (each offset four times the last), stopping at the first offset at or past
/// the end. KOReader's sync server knows books only by this name (the `document` of a progress record), so catalog
/// keeps it for every EPUB it serves.
enum KOReaderDigest {
    static let offsets: [UInt64] = [0] + (0...10).map { UInt64(1_024) << (2 * $0) }

    /// The digest of the file at `url`, as lowercase hex.
    static func of(file url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        var md5 = Insecure.MD5()
        for offset in offsets where offset < size {
            try handle.seek(toOffset: offset)
            md5.update(data: try handle.read(upToCount: 1_024) ?? Data())
        }
        return Hex.string(md5.finalize())
    }
}
