import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import TestSupport
import Testing

/// Live events (`GET /me/events`, server-sent events) through the gateway from two patron replicas: an offer reaches
/// the patron's streams on both replicas, whichever replica made it; another patron's stream hears nothing of it; a
/// stream resumed with `Last-Event-ID` gets what it missed, once; the gateway bounds the streams per patron; a bad
/// `Last-Event-ID` is a 400, no token a 401; no other spelling of the path passes the bound.
@Suite struct LiveEventsTests {
    /// One open stream, its events parsed as they come.
    final class EventStream: Sendable {
        struct Event: Sendable {
            let id: String?
            let kind: String
            let data: [String: String]
        }

        let status: Int
        let headers: [(String, String)]
        private let received = NIOLockedValueBox<[Event]>([])
        private let reading = NIOLockedValueBox<Task<Void, Never>?>(nil)
        private let over = NIOLockedValueBox(false)

        init(
            _ base: String,
            path: String = "/me/events",
            token: String?,
            lastEventID: String? = nil,
            timeout: TimeAmount = .seconds(30),
            client: HTTPClient = .shared
        ) async throws {
            var request = HTTPClientRequest(url: base + path)
            if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
            if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID) }
            request.headers.add(name: "Accept", value: "text/event-stream")
            let response = try await client.execute(request, timeout: timeout)
            status = Int(response.status.code)
            headers = response.headers.map { ($0.name.lowercased(), $0.value) }
            let task = Task { [received, over] in
                defer { over.withLockedValue { $0 = true } }
                var buffer = ""
                do {
                    for try await part in response.body {
                        buffer += String(buffer: part)
                        while let end = buffer.range(of: "\n\n") {
                            let block = String(buffer[..<end.lowerBound])
                            buffer = String(buffer[end.upperBound...])
                            if let event = Self.parse(block) { received.withLockedValue { $0.append(event) } }
                        }
                    }
                } catch {}
            }
            reading.withLockedValue { $0 = task }
        }

        static func parse(_ block: String) -> Event? {
            var (id, kind, data): (String?, String, String?) = (nil, "message", nil)
            for line in block.split(separator: "\n", omittingEmptySubsequences: true) where !line.hasPrefix(":") {
                let (field, value) = line.firstIndex(of: ":").map { (line[..<$0], line[line.index(after: $0)...].drop { $0 == " " }) } ?? (line, "")
                switch field {
                case "id": id = String(value)
                case "event": kind = String(value)
                case "data": data = String(value)
                default: break
                }
            }
            guard let data else { return nil }
            let object = (try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any]) ?? [:]
            return Event(id: id, kind: kind, data: object.compactMapValues { $0 as? String })
        }

        var events: [Event] { received.withLockedValue { $0 } }

        /// Whether the server ended the stream (or it was closed).
        var ended: Bool { over.withLockedValue { $0 } }

        func close() { reading.withLockedValue { $0?.cancel() } }

        deinit { close() }
    }

    @Test func offersReachEveryOpenStreamOfThePatronAndResumedStreamsMissNothing() async throws {
        try await Stack.run(patronReplicas: 2, gateways: 2) { stack in
            let base = stack.gateway.base
            let api = stack.gateway
            let book = try await stack.ingest(await TestTools.generatedBooks(count: 1, seed: 52)[0])
            let lender = try await stack.signUp().token
            let waiter = try await stack.signUp().token
            let other = try await stack.signUp().token
            try await stack.waitForLicence(book, token: waiter)

            // Two streams of the waiter's, opened one after the other: the gateway hands them to the two replicas.
            let first = try await EventStream(base, token: waiter)
            let second = try await EventStream(base, token: waiter)
            let others = try await EventStream(base, token: other)
            for stream in [first, second, others] {
                #expect(stream.status == 200)
                #expect(stream.headers.contains { $0 == ("content-type", "text/event-stream; charset=utf-8") })
                try await eventually("a new stream starts with ready") { stream.events.first?.kind == "ready" }
            }

            #expect(try await api.call(.POST, "/me/books/\(book)/borrow", as: .bearer(lender)).status == 201)
            #expect(try await api.call(.POST, "/me/books/\(book)/hold", as: .bearer(waiter)).status == 201)
            #expect(try await api.call(.POST, "/me/books/\(book)/return", as: .bearer(lender)).status == 200)
            for stream in [first, second] {
                try await eventually("the offer never reached a stream") {
                    stream.events.contains { $0.kind == "loan_offered" && $0.data["bookId"] == book.lowercased() && $0.data["title"] != nil }
                }
                #expect(stream.events.contains { $0.kind == "shelf_changed" }, "the hold placed is a change of the shelf")
            }
            // Ids grow, one each.
            let ids = first.events.compactMap { $0.id.flatMap(Int64.init) }
            #expect(ids == ids.sorted() && Set(ids).count == ids.count, "\(ids)")
            try await Task.sleep(for: .seconds(1))
            #expect(others.events.map(\.kind) == ["ready"], "another patron's stream heard \(others.events.map(\.kind))")

            // Resumed after the offer: only what came after it, and nothing twice.
            let seen = try #require(first.events.last { $0.kind == "loan_offered" }?.id)
            first.close()
            #expect(try await api.call(.POST, "/me/books/\(book)/decline", as: .bearer(waiter)).status == 200)
            try await eventually("the decline never reached the open stream") {
                second.events.filter { $0.kind == "shelf_changed" }.count >= 2
            }
            let resumed = try await EventStream(base, token: waiter, lastEventID: seen)
            try await eventually("the resumed stream never got what it missed") { resumed.events.contains { $0.kind == "shelf_changed" } }
            try await Task.sleep(for: .milliseconds(500))
            #expect(!resumed.events.contains { $0.kind == "ready" || $0.kind == "loan_offered" }, "\(resumed.events.map(\.kind))")
            let after = second.events.drop { $0.id != seen }.dropFirst().map(\.id)
            #expect(resumed.events.map(\.id) == Array(after), "the resumed stream replays exactly what the open one got after \(seen)")

            // At most five streams per patron through one gateway: two are open (and the closed first one until the
            // gateway's next write to it finds it gone, within a heartbeat), so two or three more, then a 429.
            var more: [EventStream] = []
            var refused: EventStream?
            while refused == nil, more.count < 6 {
                let stream = try await EventStream(base, token: waiter)
                if stream.status == 200 { more.append(stream) } else { refused = stream }
            }
            #expect(refused?.status == 429 && [2, 3].contains(more.count), "\(more.count) more opened")
            #expect(refused?.headers.contains { $0.0 == "retry-after" } == true)
            more[0].close()
            // Freed at the gateway's next write to it, within a heartbeat (15 s); once, at a full run's busiest, past 40 s.
            try await eventually(timeout: .seconds(90), "a closed stream's place was never freed") {
                let again = try await EventStream(base, token: waiter)
                defer { again.close() }
                return again.status == 200
            }

            let bad = try await api.call(.GET, "/me/events", as: .bearer(other), headers: [("Last-Event-ID", "abc")])
            #expect(bad.status == 400 && bad.isProblem)
            #expect(try await api.call(.GET, "/me/events").status == 401)
            for stream in [second, others, resumed] + more { stream.close() }

            // Graceful shutdown ends the streams open on a patron replica and on a gateway at once, not at their end
            // (ten minutes); a client then resumes through what is left.
            let onReplicas = [try await EventStream(base, token: other), try await EventStream(base, token: other)]
            let throughSecondGateway = try await EventStream(stack.secondGateway.base, token: other)
            for stream in onReplicas + [throughSecondGateway] { try await eventually("no ready") { stream.events.first?.kind == "ready" } }
            let stopping = ContinuousClock.now
            #expect(await stack.stop(.secondPatron) == 0)
            #expect(await stack.stop(.secondGateway) == 0)
            #expect(ContinuousClock.now - stopping < .seconds(20), "shutting down waited for the streams")
            try await eventually("the streams on the stopped replica and gateway never ended") {
                throughSecondGateway.ended && onReplicas.contains { $0.ended }
            }
            let readyID = onReplicas[0].events.first?.id
            let again = try await EventStream(base, token: other, lastEventID: readyID)
            #expect(again.status == 200)
            for stream in onReplicas + [again] { stream.close() }
        }
    }

    /// Seventy streams from one account on other spellings of the path (a trailing slash, empty and dot segments, an
    /// encoded letter, another method) once reached patron past the gateway's bound, on the pages' connections, and
    /// another patron's requests then waited for a connection until they ended in 504. Now at most the bound's streams
    /// open, every other spelling is refused, and another patron is answered. Each stream on its own connection, as an
    /// attacker's are: through a shared client's eight, the five open streams left three for 65 requests, and on a
    /// loaded CI machine some waited past their timeout for one.
    @Test func oddSpellingsOfTheStreamsPathPassNoBound() async throws {
        try await withPlainClient(connectionsPerHost: 80) { client in
            try await Stack.run { stack in
                let base = stack.gateway.base
                let attacker = try await stack.signUp().token
                let other = try await stack.signUp().token
                let spellings = [
                    "/me/events/", "/me//events", "//me/events", "/me/./events", "/me/x/../events", "/me/%65vents", "/me/events", "/me/events?a=1",
                ]
                let statuses = await withTaskGroup(of: (String, Int?, EventStream?).self) { group in
                    for index in 0..<70 {
                        let path = spellings[index % spellings.count]
                        group.addTask {
                            let stream = try? await EventStream(base, path: path, token: attacker, timeout: .seconds(30), client: client)
                            return (path, stream?.status, stream)
                        }
                    }
                    var seen: [(String, Int?, EventStream?)] = []
                    for await result in group { seen.append(result) }
                    return seen
                }
                let opened = statuses.filter { $0.1 == 200 }
                #expect(opened.count == 5, "streams open: \(opened.map(\.0))")
                #expect(opened.allSatisfy { PathShapeSpelling.canonical.contains($0.0) }, "\(opened.map(\.0))")
                #expect(statuses.allSatisfy { $0.1 != nil }, "a stream's request got no answer: \(statuses.filter { $0.1 == nil }.map(\.0))")
                let refusedOdd = statuses.filter { !PathShapeSpelling.canonical.contains($0.0) }.map(\.1)
                #expect(refusedOdd.allSatisfy { $0 == 404 || $0 == 429 }, "\(refusedOdd)")

                // Another patron is answered at once, while the attacker's streams stay open.
                var request = HTTPClientRequest(url: base + "/me")
                request.headers.add(name: "Authorization", value: "Bearer \(other)")
                let answer = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                #expect(answer.status == .ok)
                for (_, _, stream) in statuses { stream?.close() }
            }
        }
    }
}

/// The spellings of the streams' path that reach the stream (the query is not the path).
private enum PathShapeSpelling {
    static let canonical: Set<String> = ["/me/events", "/me/events/", "/me/events?a=1"]
}
