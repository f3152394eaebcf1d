import Foundation
import Logging
import ServiceSupport
import Shared

extension AskedInBatches where Key == UUID {
    /// The gateway's background renewals asked of patron's batched `route` (`IDsAsked`): every id falling due within
    /// `window` in one request, each answered from what `answers` picks out of the reply (by id in lower case). A batch
    /// serves many requests, so its failure is logged without any one's request id, and gives no answer (the answers
    /// in hand stand until their lifetime ends).
    static func renewals<Reply: Decodable & Sendable>(
        of patron: InternalClient,
        _ route: InternalRoute,
        label: String,
        answers: @escaping @Sendable (Reply) -> [String: Value]
    ) -> AskedInBatches {
        let logger = Logger(label: label)
        return AskedInBatches(window: window, maxKeys: IDsAsked.limit) { ids in
            do {
                let reply = answers(try await patron.send(.POST, route.path, body: IDsAsked(ids: ids), as: Reply.self, logger: logger))
                return Dictionary(ids.compactMap { id in reply[id.lowercased].map { (id, $0) } }, uniquingKeysWith: { $1 })
            } catch {
                logger.warning("Batched checks unavailable; keeping the answers in hand", metadata: ["error": "\(error)", "ids": "\(ids.count)"])
                return nil
            }
        }
    }

    /// How long renewals gather before they are asked together.
    static var window: Duration { .milliseconds(100) }
}
