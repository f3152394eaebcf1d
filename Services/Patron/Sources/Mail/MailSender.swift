import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import ServiceSupport

/// Sends the queued mail through the relay, every `interval`: each message under its row's lock, so that patron's
/// replicas never send one twice, retried with backoff while the relay is away, and a refused address marked.
struct MailSender: Service {
    let mail: MailPostgresRepository
    let relay: SMTPRelay
    let signer: MailToken.Signer
    let publicURL: String
    let libraryName: String
    let interval: TimeInterval
    let schema: SchemaReadiness
    let logger: Logger

    func run() async throws {
        try await PeriodicJob.run(every: interval, after: schema, logger: logger, failure: "Mail run failed") {
            while try await mail.sendDue(limit: 10, logger: logger, send) == 10 {}
        }
    }

    @Sendable func send(_ due: MailPostgresRepository.Due) async -> SMTPRelay.Outcome {
        let message = compose(due)
        let outcome = (try? await BlockingWork.run { [relay] in relay.send(message.data, to: due.address) }) ?? .unavailable("not sent")
        switch outcome {
        case .sent: logger.info("Mail sent", metadata: ["mail.kind": "\(due.kind)", "mail.id": "\(due.id)"])
        case .refused(let reason): logger.warning("Mail address refused", metadata: ["mail.id": "\(due.id)", "reason": "\(reason)"])
        case .unavailable(let reason): logger.warning("Mail relay unavailable", metadata: ["mail.id": "\(due.id)", "reason": "\(reason)"])
        }
        return outcome
    }

    func compose(_ due: MailPostgresRepository.Due) -> MailMessage {
        let verifying = due.kind == MailTemplates.verify
        let link =
            verifying
            ? publicURL + "/mail/verify?token=" + signer.sign(.verify(patron: due.patronID, address: due.address))
            : publicURL + "/#/book/" + (due.bookID?.uuidString.lowercased() ?? "")
        let unsubscribe =
            verifying
            ? nil : publicURL + "/mail/unsubscribe?token=" + signer.sign(.unsubscribe(patron: due.patronID, kind: due.kind))
        let facts = MailTemplates.Facts(library: libraryName, title: due.title, deadline: due.deadline, link: link)
        return MailMessage(
            id: due.id,
            from: relay.from,
            fromName: libraryName,
            to: due.address,
            language: due.language,
            text: MailTemplates.text(kind: due.kind, language: due.language, facts: facts),
            link: link,
            unsubscribe: unsubscribe
        )
    }
}
