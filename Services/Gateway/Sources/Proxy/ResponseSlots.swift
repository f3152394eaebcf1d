import Foundation
import Hummingbird
import Shared
import Synchronization

/// Places for responses that stay open long (live event streams, books' files): at most `perOwner` of one patron's
/// (anonymous callers have no share of their own) and `total` in all on this gateway.
final class ResponseSlots: Sendable {
    let perOwner: Int
    let total: Int
    /// What the responses are, as the refusals name them: "event streams", slugs `too-many-streams` and `streams-full`.
    let names: Names
    private let open = Mutex<(byOwner: [UUID: Int], all: Int)>(([:], 0))

    struct Names: Sendable {
        var plural: String
        var ownerFullSlug: String
        var gatewayFullSlug: String
        var retryAfter: Int
    }

    init(perOwner: Int, total: Int, names: Names) {
        self.perOwner = perOwner
        self.total = total
        self.names = names
    }

    /// A place for one more response of `owner`'s, or the refusal to answer: 429 past the owner's share, 503 past the
    /// gateway's, each with `Retry-After`.
    func claimOrRefuse(_ owner: UUID?) throws -> Slot {
        switch claim(owner) {
        case .success(let slot): return slot
        case .failure(.ownerFull):
            throw Problem(
                status: 429,
                slug: names.ownerFullSlug,
                title: "Too many \(names.plural)",
                detail: "At most \(perOwner) \(names.plural) may be open at once for one account; let one end first",
                retryAfter: names.retryAfter
            )
        case .failure(.gatewayFull):
            throw Problem(
                status: 503,
                slug: names.gatewayFullSlug,
                title: "No room for more \(names.plural)",
                detail: "This gateway has \(total) \(names.plural) open; try again soon",
                retryAfter: names.retryAfter
            )
        }
    }

    enum Refusal: Error { case ownerFull, gatewayFull }

    /// A place for one more response of `owner`'s, or why there is none.
    func claim(_ owner: UUID?) -> Result<Slot, Refusal> {
        open.withLock { open in
            guard open.all < total else { return .failure(.gatewayFull) }
            if let owner {
                guard open.byOwner[owner, default: 0] < perOwner else { return .failure(.ownerFull) }
                open.byOwner[owner, default: 0] += 1
            }
            open.all += 1
            return .success(Slot(owner: owner, slots: self))
        }
    }

    fileprivate func release(_ owner: UUID?) {
        open.withLock { open in
            if let owner {
                let left = open.byOwner[owner, default: 1] - 1
                open.byOwner[owner] = left > 0 ? left : nil
            }
            open.all -= 1
        }
    }

    func count(of owner: UUID) -> Int { open.withLock { $0.byOwner[owner, default: 0] } }

    var count: Int { open.withLock { $0.all } }

    /// One response's place, given back when the last reference to it goes: after the response, or with the response
    /// never written (a client that left before the headers; an error on the way), so no path keeps it.
    final class Slot: Sendable {
        let owner: UUID?
        let slots: ResponseSlots

        fileprivate init(owner: UUID?, slots: ResponseSlots) {
            self.owner = owner
            self.slots = slots
        }

        deinit { slots.release(owner) }
    }
}

extension Response {
    /// The response with `slot` held until its body is written (or the response dropped).
    func holding(_ slot: ResponseSlots.Slot) -> Response {
        var held = self
        let body = self.body
        held.body = ResponseBody(contentLength: body.contentLength) { writer in
            defer { withExtendedLifetime(slot) {} }
            try await body.write(writer)
        }
        return held
    }
}
