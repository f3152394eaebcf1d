import Hummingbird
import Logging
import ServiceSupport
import Shared

extension UpstreamSender {
    /// Catalog's answer to `request`, asked with the ETag of the copy `cache` holds under `key`: a 304 renews the copy
    /// and the copy is the answer (without `Age`: catalog has just vouched for it); a 200 with an ETag is kept for next
    /// time. With `answerFresh`, a copy still fresh is the answer without asking (a patron's page for the verdict's
    /// time); without, catalog is asked every time (a file it must allow each download of). A copy kept or renewed is
    /// fresh for `lifetime` (the cache's own when nil). Used by
    /// `PersonalPagesMiddleware` and `HeldFilesMiddleware`.
    func throughHeldCopy(
        _ request: Request,
        _ call: UpstreamCall,
        key: String,
        in cache: ResponseCache,
        maxBytes: Int,
        answerFresh: Bool,
        lifetime: Duration? = nil,
        extra: [(String, String)] = [],
        first: FirstFetch? = nil,
        logger: Logger
    ) async throws -> Response {
        if answerFresh, var copy = cache.get(key) {
            copy.headers[.age] = nil
            return copy.response(to: request)
        }
        let held = cache.get(key) ?? cache.stale(key)
        let response = try await send(
            request,
            call,
            keep: KeptCopy(cache: cache, key: key, maxBytes: maxBytes, first: first, lifetime: lifetime),
            extra: extra + (held?.headers[.eTag].map { [("If-None-Match", $0)] } ?? []),
            withoutConditions: true,
            logger: logger
        )
        guard response.status == .notModified, var held, response.headers[.eTag] == held.headers[.eTag] else { return response }
        cache.put(key, held, lifetime: lifetime)
        held.headers[.age] = nil
        return held.response(to: request)
    }
}
