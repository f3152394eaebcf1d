import Foundation
import ZIPFoundation

/// A ZIP archive read with limits: entry count, declared and actual uncompressed sizes, compression ratio,
/// safe entry names and no duplicates. Every read stops at its limit however the headers lie.
struct SafeArchive {
    struct Limits {
        var maxEntries = 10_000
        var maxTotalUncompressed: UInt64 = 1 << 30
        var maxEntryBytes = 64 << 20
        var maxRatio: UInt64 = 200
    }

    /// What the central directory says, checked: readable entries by name, and names that appear more than once
    /// (the first entry of each is the one read). Kept between requests by `ArchiveDirectories`.
    struct Directory: @unchecked Sendable {  // ZIPFoundation's `Entry` is an immutable value, not marked Sendable.
        let entries: [String: ZIPFoundation.Entry]
        let duplicates: [String]
    }

    let archive: Archive
    let directory: Directory
    let limits: Limits
    var entries: [String: ZIPFoundation.Entry] { directory.entries }
    var duplicates: [String] { directory.duplicates }

    /// Opens the archive and reads and checks its central directory.
    init(url: URL, limits: Limits = Limits()) throws {
        let archive = try Self.open(url)
        self.init(archive: archive, directory: try Self.directory(of: archive, limits: limits), limits: limits)
    }

    /// Opens the archive whose central directory was read before.
    init(url: URL, directory: Directory, limits: Limits = Limits()) throws {
        self.init(archive: try Self.open(url), directory: directory, limits: limits)
    }

    private init(archive: Archive, directory: Directory, limits: Limits) {
        self.archive = archive
        self.directory = directory
        self.limits = limits
    }

    private static func open(_ url: URL) throws -> Archive {
        do { return try Archive(url: url, accessMode: .read) } catch { throw EPUBError.notAZip }
    }

    private static func directory(of archive: Archive, limits: Limits) throws -> Directory {
        var entries: [String: ZIPFoundation.Entry] = [:]
        var total: UInt64 = 0
        var count = 0
        var duplicates: [String] = []
        for entry in archive {
            count += 1
            guard count <= limits.maxEntries else { throw EPUBError.tooManyEntries(count) }
            let path = entry.path(using: .utf8)
            guard Self.isSafe(path) else { throw EPUBError.unsafePath(path) }
            if entries[path] != nil {
                duplicates.append(path)
                continue
            }
            total += entry.uncompressedSize
            guard total <= limits.maxTotalUncompressed else { throw EPUBError.zipBomb("more than \(limits.maxTotalUncompressed) bytes uncompressed") }
            if entry.uncompressedSize > 1 << 20, entry.uncompressedSize / max(entry.compressedSize, 1) > limits.maxRatio {
                throw EPUBError.zipBomb("\(path) expands \(entry.uncompressedSize / max(entry.compressedSize, 1)) times")
            }
            if entry.type == .file { entries[path] = entry }
        }
        guard count > 0 else { throw EPUBError.notAZip }
        return Directory(entries: entries, duplicates: duplicates)
    }

    /// Relative, no `..` segment, no NUL or backslash, valid UTF-8.
    static func isSafe(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/"), !path.contains("\u{FFFD}"), !path.contains("\0"), !path.contains("\\") else { return false }
        return !path.split(separator: "/").contains("..")
    }

    func contains(_ path: String) -> Bool { entries[path] != nil }

    /// The bytes of entry `path`, or nil when there is no such entry. Throws when it is declared larger than `limit`
    /// bytes, or when it inflates past its declared size (the read stops there: a small entry that lies about its
    /// size costs no more than its declared size, whoever asks for it).
    func read(_ path: String, limit: Int? = nil) throws -> Data? {
        guard let entry = entries[path] else { return nil }
        let cap = limit ?? limits.maxEntryBytes
        guard entry.uncompressedSize <= UInt64(cap) else { throw EPUBError.zipBomb("\(path) is larger than \(cap) bytes") }
        let declared = Int(entry.uncompressedSize)
        var data = Data()
        data.reserveCapacity(declared)
        do {
            _ = try archive.extract(entry, bufferSize: 16 << 10, skipCRC32: true) { chunk in
                data.append(chunk)
                if data.count > declared { throw EPUBError.zipBomb("\(path) expands beyond its declared size") }
            }
        } catch let error as EPUBError {
            throw error
        } catch {
            return nil
        }
        return data
    }

    /// Bytes `range` of entry `path` (its declared size bounds it), inflated on a thread of their own as the
    /// consumer takes them: a large entry is never held whole in memory.
    func chunks(of path: String, range: Range<Int>, obfuscation: FontObfuscation?) -> EntryChunks? {
        guard let entry = entries[path] else { return nil }
        return EntryChunks(archive: archive, entry: entry, path: path, range: range, obfuscation: obfuscation)
    }
}
