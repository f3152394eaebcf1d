import Foundation

/// One audio file of an audiobook on its way into the package: where ingest holds it, the name it came with, and
/// what ffprobe says of it.
struct AudioTrack: Sendable {
    var file: URL
    var originalName: String
    var probe: MediaProbe

    /// Its entry in the package (and its href in the manifest): `track-001.mp3`, ...
    func packagedName(_ number: Int) -> String { String(format: "track-%03d.", number) + probe.fileExtension }

    /// Tracks in listening order: ID3 track numbers first (as players order an album), then names in natural order
    /// (`2` before `10`). A Readium package's own reading order is kept as it is instead (`AudiobookPackager`).
    static func listeningOrder(_ tracks: [AudioTrack]) -> [AudioTrack] {
        tracks.sorted { left, right in
            switch (left.probe.trackNumber, right.probe.trackNumber) {
            case let (l?, r?) where l != r: return l < r
            case (_?, nil): return true
            case (nil, _?): return false
            default: return left.originalName.localizedStandardCompare(right.originalName) == .orderedAscending
            }
        }
    }
}
