import Foundation

/// What ffprobe says of one audio file: its container, duration, tags, chapters and whether it carries a picture.
struct MediaProbe: Sendable {
    var formatName: String
    var duration: Double
    /// Tags of the file, keys lowercased (`title`, `artist`, `album`, `composer`, `track`, ...).
    var tags: [String: String]
    var chapters: [Chapter]
    var audioCodec: String
    /// The index of an attached picture's stream (an M4B's or MP3's cover).
    var pictureStream: Int?

    struct Chapter: Sendable, Equatable {
        var title: String
        var start: Double
    }

    /// The media type a browser and a reading app play it as.
    var mediaType: String { formatName.contains("mp4") || formatName.contains("mov") ? "audio/mp4" : "audio/mpeg" }
    var fileExtension: String { mediaType == "audio/mp4" ? "m4a" : "mp3" }

    /// Probes `file`. Throws `MediaError.unreadableAudio` when ffprobe cannot read it or finds no audio of a
    /// codec the web app's player and reading apps play (MP3, AAC).
    static func of(_ file: URL, name: String) throws -> MediaProbe {
        let output: Data
        do {
            output = try ExternalTool.run(
                "ffprobe",
                ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", "-show_chapters", file.path],
                timeout: 60
            )
        } catch {
            throw MediaError.unreadableAudio("\(name): \(error)")
        }
        guard let report = try? JSONDecoder().decode(Report.self, from: output) else { throw MediaError.unreadableAudio("\(name): no report") }
        guard let audio = report.streams.first(where: { $0.codecType == "audio" }) else { throw MediaError.unreadableAudio("\(name) has no audio") }
        guard ["mp3", "aac"].contains(audio.codecName ?? "") else {
            throw MediaError.unreadableAudio("\(name) is \(audio.codecName ?? "an unknown codec"); MP3 and AAC are lent")
        }
        guard let duration = Double(report.format.duration ?? audio.duration ?? ""), duration.isFinite, duration > 0 else {
            throw MediaError.unreadableAudio("\(name) has no duration")
        }
        let tags = Dictionary((report.format.tags ?? [:]).map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        let chapters = (report.chapters ?? []).enumerated().compactMap { index, chapter -> Chapter? in
            guard let start = Double(chapter.startTime ?? ""), start.isFinite, start >= 0, start < duration else { return nil }
            let title = chapter.tags?["title"].map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
            return Chapter(title: title.isEmpty ? "Chapter \(index + 1)" : String(title.prefix(300)), start: start)
        }
        return MediaProbe(
            formatName: report.format.formatName ?? "",
            duration: duration,
            tags: tags,
            chapters: chapters,
            audioCodec: audio.codecName ?? "",
            pictureStream: report.streams.first { $0.codecType == "video" && $0.disposition?["attached_pic"] == 1 }?.index
        )
    }

    /// The attached picture as a JPEG or PNG file's bytes (copied, not re-encoded), or nil.
    func picture(of file: URL) -> Data? {
        guard let stream = pictureStream else { return nil }
        return try? ExternalTool.run(
            "ffmpeg",
            ["-v", "error", "-i", file.path, "-map", "0:\(stream)", "-frames:v", "1", "-c:v", "copy", "-f", "image2pipe", "-"],
            timeout: 30,
            maxOutput: 16 << 20
        )
    }

    func tag(_ names: String...) -> String? {
        for name in names {
            if let value = tags[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty { return String(value.prefix(1_000)) }
        }
        return nil
    }

    /// The track number of an ID3 `track` tag (`3` or `3/12`).
    var trackNumber: Int? { tag("track").flatMap { Int($0.split(separator: "/").first ?? "") } }

    /// ffprobe's JSON report.
    private struct Report: Decodable {
        struct Format: Decodable {
            var formatName: String?
            var duration: String?
            var tags: [String: String]?
            enum CodingKeys: String, CodingKey {
                case formatName = "format_name"
                case duration, tags
            }
        }
        struct Stream: Decodable {
            var index: Int
            var codecType: String?
            var codecName: String?
            var duration: String?
            var disposition: [String: Int]?
            enum CodingKeys: String, CodingKey {
                case codecType = "codec_type"
                case codecName = "codec_name"
                case index, duration, disposition
            }
        }
        struct ChapterReport: Decodable {
            var startTime: String?
            var tags: [String: String]?
            enum CodingKeys: String, CodingKey {
                case startTime = "start_time"
                case tags
            }
        }
        var format: Format
        var streams: [Stream]
        var chapters: [ChapterReport]?
    }
}
