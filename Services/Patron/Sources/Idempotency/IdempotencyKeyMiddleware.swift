import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceSupport
import Synchronization

/// Honours `Idempotency-Key` on a signed-in patron's writes (POST and DELETE): the first request with a key is
/// carried out and its answer kept; a retry with the same key and the same request gets that answer again, marked
/// `Idempotent-Replayed: true`, and changes nothing; the same key with another request is a 422; a retry while the
/// first is still being carried out is a 409 with `Retry-After`. The key is kept by the write's own transaction
/// (`IdempotencyClaim`), so a write and its key commit together. A request that wrote nothing (a refusal, a failure)
/// keeps nothing and may be sent again as it is. PUT is idempotent by itself and needs no key.
struct IdempotencyKeyMiddleware: RouterMiddleware {
    typealias Context = SignedInRequestContext

    let keys: IdempotencyPostgresRepository
    /// The largest request body a key covers (patron's writes are small JSON documents).
    static let bodyLimit = 1 << 20
    /// How long a write may take between keeping its key and keeping its answer: a key without an answer older than
    /// this belongs to a write that was carried out but whose answer was lost (the database went away between the two).
    /// (Longer than `answerAttempts` take; a write whose commit reached the database but whose acknowledgement did not,
    /// under a dropped connection, leaves its key without an answer at once.)
    static let answerWait: TimeInterval = 15
    /// Tries at keeping an answer, half a second more apart each time (5 s in all).
    static let answerAttempts = 5

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post || request.method == .delete, let header = request.headers[IdempotencyKey.field] else {
            return try await next(request, context)
        }
        let key = try IdempotencyKey(header: header)
        var request = request
        let body = try await request.collectBody(upTo: Self.bodyLimit)
        let fingerprint = IdempotencyKey.fingerprint(method: request.method, path: request.uri.description, body: body.readableBytesView)
        if let kept = try await keys.find(patronID: context.patronID, key: key, logger: context.logger) {
            guard kept.fingerprint == fingerprint else { throw IdempotencyError.reused }
            guard let answer = kept.answer else { throw kept.age < Self.answerWait ? IdempotencyError.inFlight : IdempotencyError.answerLost }
            return replay(answer)
        }
        let claim = IdempotencyClaim(patronID: context.patronID, key: key, fingerprint: fingerprint)
        let response = try await IdempotencyClaim.$current.withValue(claim) { try await next(request, context) }
        guard claim.isMade, response.status.code < 500 else { return response }
        return try await keep(response, key: key, context: context)
    }

    /// Keeps the answer for retries and sends it. If it cannot be kept within `answerAttempts` (the database went away
    /// just after the write), the client still gets it; a retry then gets a 409 (`answerLost` after `answerWait`).
    private func keep(_ response: Response, key: IdempotencyKey, context: Context) async throws -> Response {
        var response = response
        let body = try await response.body.collected()
        response.body = .init(byteBuffer: body)
        let answer = IdempotencyPostgresRepository.Answer(
            status: Int(response.status.code),
            contentType: response.headers[.contentType],
            location: response.headers[.location],
            body: body
        )
        // The write has committed: its answer is worth a few more tries (a connection terminated under the first
        // finds a new one at once; a database that went away may be back within seconds).
        for attempt in 1...Self.answerAttempts {
            do {
                try await keys.keep(answer, patronID: context.patronID, key: key, logger: context.logger)
                break
            } catch {
                guard attempt < Self.answerAttempts else {
                    context.logger.warning("The answer to a write with an Idempotency-Key was not kept", metadata: ["error": "\(error)"])
                    break
                }
                try? await Task.sleep(for: .milliseconds(500 * attempt))
            }
        }
        return response
    }

    private func replay(_ answer: IdempotencyPostgresRepository.Answer) -> Response {
        var headers: HTTPFields = [IdempotencyKey.replayedField: "true", .cacheControl: "private, no-store"]
        if let contentType = answer.contentType { headers[.contentType] = contentType }
        if let location = answer.location { headers[.location] = location }
        return Response(status: .init(code: answer.status), headers: headers, body: .init(byteBuffer: answer.body))
    }
}
