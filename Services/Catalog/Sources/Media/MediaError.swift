import ServiceSupport
import Shared

/// Why an audiobook or a PDF was refused: 422 with a problem document naming the reason, as `EPUBError` for EPUBs.
enum MediaError: ProblemConvertible, Equatable {
    /// Neither an EPUB, a PDF nor audio ingest knows.
    case unknownKind
    case unreadableAudio(String)
    case unreadablePDF(String)
    case noAudio
    case tooManyTracks(Int, limit: Int)
    case tooLong(hours: Int, limit: Int)
    case badPackage(String)
    case encryptedPDF
    case tooManyPages(Int, limit: Int)

    var slug: String {
        switch self {
        case .unknownKind: "unknown-file-kind"
        case .unreadableAudio: "unreadable-audio"
        case .unreadablePDF: "unreadable-pdf"
        case .noAudio: "no-audio"
        case .tooManyTracks: "too-many-tracks"
        case .tooLong: "too-long"
        case .badPackage: "bad-audiobook-package"
        case .encryptedPDF: "encrypted-pdf"
        case .tooManyPages: "too-many-pages"
        }
    }

    var detail: String {
        switch self {
        case .unknownKind:
            "The file is not an EPUB, a PDF, an M4B or MP3 audiobook, a ZIP of audio tracks or a Readium audiobook package"
        case .unreadableAudio(let reason): "An audio track cannot be read: \(reason)"
        case .unreadablePDF(let reason): "The PDF cannot be read: \(reason)"
        case .noAudio: "The archive or folder holds no audio track (MP3, M4A, M4B)"
        case .tooManyTracks(let count, let limit): "The audiobook has \(count) tracks, more than the limit of \(limit)"
        case .tooLong(let hours, let limit): "The audiobook lasts \(hours) hours, more than the limit of \(limit)"
        case .badPackage(let reason): "The audiobook package cannot be used: \(reason)"
        case .encryptedPDF: "The PDF is encrypted; only unencrypted PDFs are lent"
        case .tooManyPages(let count, let limit): "The PDF has \(count) pages, more than the limit of \(limit)"
        }
    }

    var problem: Problem { Problem(status: 422, slug: slug, title: "The file was refused", detail: detail) }
}
