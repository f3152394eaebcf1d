import Foundation
import Shared
import ZIPFoundation

/// Turns what a library has of an audiobook (an M4B with chapters, MP3 files in a ZIP or a folder, a Readium
/// audiobook package) into the one form catalog stores and serves: a Readium audiobook package whose tracks are
/// stored uncompressed (`track-001.mp3`, ...), so that a track is served with byte ranges straight from the stored
/// file, and the metadata of its tracks' tags (or the package's manifest) as a `ParsedBook`. The same upload makes
/// the same package byte for byte (fixed entry dates), so that sending it again is recognised.
struct AudiobookPackager {
    struct Limits: Sendable {
        var maxTracks = 1_000
        var maxHours = 200
    }

    struct Packaged {
        var package: URL
        var book: ParsedBook
        var cover: (data: Data, type: String)?
    }

    let limits: Limits
    /// A folder of ingest's own, removed by the caller.
    let work: URL

    func package(_ upload: URL, kind: UploadKind) throws -> Packaged {
        var manifest: PackageManifest?
        var tracks: [AudioTrack]
        switch kind {
        case .audioFile:
            tracks = [try probe(upload, name: upload.lastPathComponent)]
        case .audioFolder:
            let files = try FileManager.default.contentsOfDirectory(at: upload, includingPropertiesForKeys: nil)
                .filter { UploadKind.audioExtensions.contains($0.pathExtension.lowercased()) }
            try checkCount(files.count)
            tracks = AudioTrack.listeningOrder(try files.map { try probe($0, name: $0.lastPathComponent) })
        case .audioArchive:
            let archive = try SafeArchive(url: upload, limits: UploadKind.audioLimits)
            let names = archive.entries.keys.filter { UploadKind.audioExtensions.contains(($0 as NSString).pathExtension.lowercased()) }
                .filter { !$0.split(separator: "/").contains { $0.hasPrefix(".") || $0 == "__MACOSX" } }
            try checkCount(names.count)
            tracks = AudioTrack.listeningOrder(try names.map { try probe(try extract($0, from: archive), name: $0) })
        case .audiobookPackage:
            let archive = try SafeArchive(url: upload, limits: UploadKind.audioLimits)
            guard let data = try archive.read("manifest.json", limit: 4 << 20) else { throw MediaError.badPackage("no manifest.json") }
            let read = try PackageManifest.read(data)
            try checkCount(read.readingOrder.count)
            tracks = try read.readingOrder.map { href in
                guard archive.contains(href) else {
                    throw MediaError.badPackage("the reading order names \(href.prefix(200)), which is not in the package")
                }
                return try probe(try extract(href, from: archive), name: href)
            }
            manifest = read
        default:
            throw MediaError.unknownKind
        }
        guard !tracks.isEmpty else { throw MediaError.noAudio }
        let total = tracks.reduce(0) { $0 + $1.probe.duration }
        guard total <= Double(limits.maxHours) * 3600 else { throw MediaError.tooLong(hours: Int(total / 3600), limit: limits.maxHours) }
        let names = tracks.indices.map { tracks[$0].packagedName($0 + 1) }
        var book = metadata(of: tracks, names: names, manifest: manifest, fallbackTitle: upload.deletingPathExtension().lastPathComponent)
        book.duration = total
        let package = work.appendingPathComponent("package.audiobook")
        try write(tracks, names: names, book: book, to: package)
        book.koreaderDigest = try KOReaderDigest.of(file: package)
        let cover = tracks.lazy.compactMap { track in track.probe.picture(of: track.file) }.first.flatMap { data in
            RasterImage.type(of: data).map { (data: data, type: $0) }
        }
        return Packaged(package: package, book: book, cover: cover)
    }

    private func checkCount(_ count: Int) throws {
        guard count <= limits.maxTracks else { throw MediaError.tooManyTracks(count, limit: limits.maxTracks) }
    }

    private func probe(_ file: URL, name: String) throws -> AudioTrack {
        AudioTrack(file: file, originalName: name, probe: try MediaProbe.of(file, name: name))
    }

    /// Writes entry `path` to a file of the work folder, stopping past its declared size however its headers lie.
    private func extract(_ path: String, from archive: SafeArchive) throws -> URL {
        guard let entry = archive.entries[path] else { throw MediaError.badPackage("\(path.prefix(200)) is missing") }
        let file = work.appendingPathComponent("in-\(UUID().uuidString)." + (path as NSString).pathExtension.lowercased())
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        var written: UInt64 = 0
        do {
            _ = try archive.archive.extract(entry, skipCRC32: false) { data in
                written += UInt64(data.count)
                guard written <= entry.uncompressedSize else { throw EPUBError.zipBomb("\(path) inflates past its declared size") }
                try handle.write(contentsOf: data)
            }
        } catch let error as EPUBError {
            throw error
        } catch {
            throw MediaError.unreadableAudio("\(path.prefix(200)) cannot be read from the archive: \(error)")
        }
        return file
    }

    /// The book's metadata: a package's manifest first, then the first track's tags (an album's tags for several
    /// tracks, a file's own for one), the upload's name last.
    private func metadata(of tracks: [AudioTrack], names: [String], manifest: PackageManifest?, fallbackTitle: String) -> ParsedBook {
        let first = tracks[0].probe
        let several = tracks.count > 1
        let title = manifest?.title ?? (several ? first.tag("album", "title") : first.tag("title", "album")) ?? fallbackTitle
        var contributors: [Contributor] = []
        let authors = manifest?.authors ?? (first.tag("album_artist", "artist", "author").map(Self.names) ?? [])
        contributors += authors.map { Contributor(name: $0, role: "aut") }
        let narrators = manifest?.narrators ?? (first.tag("narrator", "composer", "performer").map(Self.names) ?? [])
        contributors += narrators.filter { !authors.contains($0) }.map { Contributor(name: $0, role: "nrt") }
        let readingOrder = tracks.indices.map { index in
            let track = tracks[index]
            let trackTitle = several ? track.probe.tag("title") ?? "Part \(index + 1)" : title
            return PackageResource(href: names[index], type: track.probe.mediaType, properties: [], duration: track.probe.duration, title: trackTitle)
        }
        let toc = manifest?.toc(renamed: Dictionary(uniqueKeysWithValues: zip(manifest?.readingOrder ?? [], names))) ?? chapters(tracks, readingOrder)
        let genres = first.tag("genre").map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } ?? []
        return ParsedBook(
            format: .audiobook,
            title: title,
            contributors: contributors,
            languages: manifest?.languages ?? first.tag("language").map { [$0] } ?? [],
            publisher: manifest?.publisher ?? first.tag("publisher", "label"),
            published: first.tag("date", "year").map { String($0.prefix(10)) },
            description: manifest?.description ?? first.tag("description", "synopsis", "comment"),
            subjects: genres.filter { !$0.isEmpty && $0.caseInsensitiveCompare("audiobook") != .orderedSame },
            readingOrder: readingOrder,
            toc: toc
        )
    }

    /// The table of contents: each track's chapters (an M4B's), or one entry per track.
    private func chapters(_ tracks: [AudioTrack], _ readingOrder: [PackageResource]) -> [TOCEntry] {
        tracks.indices.flatMap { index -> [TOCEntry] in
            let href = readingOrder[index].href
            let chapters = tracks[index].probe.chapters
            guard !chapters.isEmpty else { return [TOCEntry(title: readingOrder[index].title ?? "Part \(index + 1)", href: href, children: [])] }
            return chapters.map { TOCEntry(title: $0.title, href: $0.start > 0 ? href + "#t=\(Self.seconds($0.start))" : href, children: []) }
        }
    }

    /// Seconds as a media fragment writes them: whole seconds bare, otherwise to the millisecond.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.3f", value)
    }

    /// "A; B", "A, B" or "A & B" as names.
    static func names(_ text: String) -> [String] {
        text.components(separatedBy: CharacterSet(charactersIn: ";&")).flatMap { part in
            part.contains(",") && part.split(separator: ",").allSatisfy({ $0.trimmingCharacters(in: .whitespaces).contains(" ") })
                ? part.split(separator: ",").map(String.init) : [part]
        }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.map { String($0.prefix(300)) }
    }

    /// The package: `manifest.json` (the reading order and table of contents with relative hrefs, for an app that
    /// opens the file offline) and the tracks, uncompressed, dated 2000-01-01 so that the bytes depend on the content only.
    private func write(_ tracks: [AudioTrack], names: [String], book: ParsedBook, to url: URL) throws {
        let archive: Archive
        do { archive = try Archive(url: url, accessMode: .create) } catch { throw CocoaError(.fileWriteUnknown) }
        let date = Date(timeIntervalSince1970: 946_684_800)
        let manifest = Data(PackageManifest.document(book).utf8)
        try archive.addEntry(with: "manifest.json", type: .file, uncompressedSize: Int64(manifest.count), modificationDate: date) { position, size in
            manifest.subdata(in: Int(position)..<Int(position) + size)
        }
        for (track, name) in zip(tracks, names) {
            let handle = try FileHandle(forReadingFrom: track.file)
            defer { try? handle.close() }
            let size = Int64(try FileManager.default.attributesOfItem(atPath: track.file.path)[.size] as? Int ?? 0)
            try archive.addEntry(with: name, type: .file, uncompressedSize: size, modificationDate: date, compressionMethod: .none) {
                position,
                size in
                try handle.seek(toOffset: UInt64(position))
                return try handle.read(upToCount: size) ?? Data()
            }
        }
    }
}
