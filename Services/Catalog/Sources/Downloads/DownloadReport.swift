import Foundation
import Logging
import ServiceSupport
import Shared

/// How a borrower's download through `/fulfill` went, told to patron as the book's download events: started when
/// the file is first sent, completed once its last byte is written, failed when sending breaks off. Most OPDS apps
/// never report download events themselves; without these the book would stay DOWNLOADING, a state that cannot
/// be returned from.
struct DownloadReport: Sendable {
    let patron: InternalClient
    let patronID: UUID
    let bookID: UUID
    let logger: Logger

    /// Patron's answer to a reported event, whose content catalog does not need.
    private struct IgnoredAnswer: Decodable {}

    /// The states in which a download through `/fulfill` is news to patron.
    static let reportedFrom: Set<BookState> = [.notDownloaded, .downloadQueued, .downloading, .downloadFailed]

    /// Best effort: a refusal (another device moved the book on) or an unreachable patron never fails the download.
    func send(_ event: BookEvent) async {
        do {
            _ = try await patron.send(
                .POST,
                InternalRoute.bookEvents(patron: patronID, book: bookID).path,
                body: ReportedEvent(event: event),
                as: IgnoredAnswer.self,
                logger: logger
            )
        } catch {
            logger.info("Download event not recorded", metadata: ["event": "\(event.rawValue)", "error": "\(error)"])
        }
    }
}
