import Foundation

/// What an uploaded file (or, from the bulk CLI, a folder) is, from its first bytes and, for a ZIP, its entries'
/// names: never from a name the uploader chose.
enum UploadKind: Equatable {
    case epub
    case pdf
    /// A single audio file: M4B/M4A (MP4 container) or MP3.
    case audioFile
    /// A ZIP whose entries are audio tracks (MP3, M4A, M4B).
    case audioArchive
    /// A Readium audiobook package: a ZIP with `manifest.json` at its root.
    case audiobookPackage
    /// A folder of audio tracks (the bulk CLI).
    case audioFolder

    static let audioExtensions: Set<String> = ["mp3", "m4a", "m4b", "mp4", "aac"]

    static func of(_ url: URL) throws -> UploadKind {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue { return .audioFolder }
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let head = [UInt8](try handle.read(upToCount: 12) ?? Data())
        if head.starts(with: Array("%PDF-".utf8)) { return .pdf }
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return try zipKind(url) }
        if head.count >= 8, head[4...7].elementsEqual(Array("ftyp".utf8)) { return .audioFile }
        // An ID3v2 tag, or an MPEG audio frame's sync word.
        if head.starts(with: Array("ID3".utf8)) || (head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0) { return .audioFile }
        // Anything else goes to the EPUB reader, whose refusal ("not a ZIP") has always answered unknown files.
        return .epub
    }

    /// An EPUB has `mimetype` or `META-INF/container.xml`; a package `manifest.json`; otherwise audio entries make
    /// an archive of tracks. A ZIP with none of these is left to the EPUB reader to refuse.
    private static func zipKind(_ url: URL) throws -> UploadKind {
        let archive = try SafeArchive(url: url, limits: audioLimits)
        let names = archive.entries.keys
        if names.contains("mimetype") || names.contains("META-INF/container.xml") { return .epub }
        if names.contains("manifest.json") { return .audiobookPackage }
        if names.contains(where: { audioExtensions.contains(($0 as NSString).pathExtension.lowercased()) }) { return .audioArchive }
        return .epub
    }

    /// Bounds of an audio archive or package: entries and the total size (tracks are stored, not compressed, so the
    /// ratio check stays as it is for EPUBs).
    static let audioLimits = SafeArchive.Limits(maxEntries: 2_000, maxTotalUncompressed: 8 << 30, maxEntryBytes: 4 << 30, maxRatio: 200)
}
