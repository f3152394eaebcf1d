import Foundation
import Shared

/// An OPDS Progression document (opds-community/drafts, `opds-progression-1.0.md`): where a reading app last was
/// in a book, as a share of it, refined by references into it.
struct ProgressionDocument: Codable, Sendable {
    struct Device: Codable, Sendable {
        /// A URI, not shown to people.
        var id: String
        var name: String
    }

    var title: String?
    var modified: Date
    var device: Device
    var progression: Double
    var references: [String]?

    static let mediaType = "application/opds-progression+json"
    /// A clock this far ahead would hold the position against every later write: refused.
    static let maxFutureSkew: TimeInterval = 3_600

    /// 400 for a document outside the draft's rules (or this server's bounds on its strings).
    func validated(now: Date = Date()) throws -> ProgressionDocument {
        guard progression.isFinite, (0...1).contains(progression) else { throw Problem.badRequest("progression must be from 0 to 1") }
        guard !device.id.isEmpty, device.id.contains(":"), device.id.utf8.count <= 512 else {
            throw Problem.badRequest("device.id must be a URI of at most 512 bytes")
        }
        guard (1...200).contains(device.name.count) else { throw Problem.badRequest("device.name must be 1 to 200 characters") }
        guard modified.timeIntervalSince(now) <= Self.maxFutureSkew else { throw Problem.badRequest("modified is more than an hour ahead") }
        guard (title ?? "").count <= 500, (references ?? []).count <= 20, (references ?? []).allSatisfy({ $0.utf8.count <= 2_048 }) else {
            throw Problem.badRequest("title (500 characters), references (20 of 2 KB at most) are too long")
        }
        return self
    }

    /// The reading-order item and fragment the first reference naming one of the book's resources points at.
    func chapter(in order: [String]) -> (chapter: Int, fragment: String?)? {
        for reference in references ?? [] {
            let parts = reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            guard let path = parts.first, !path.isEmpty, let chapter = order.firstIndex(of: PublicationPath.archivePath(of: String(path)))
            else { continue }
            return (chapter, parts.count > 1 ? String(parts[1]) : nil)
        }
        return nil
    }
}
