import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceSupport
import Shared
import Synchronization
import TestSupport
import Testing

@testable import GatewayService

/// The gateway in front of an echo upstream that answers with the headers it received.
@Suite struct GatewayTests {
    func echoUpstream() -> some ApplicationProtocol {
        let router = Router()
        router.get("/opds/**") { request, _ in
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            return try JSONMessages.response(headers)
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    /// A replica that refused stays marked down for a minute: longer than any test here, however loaded the machine
    /// (with the default two seconds, a slow machine saw the second request try the replica again: 502, not 503).
    func gateway(catalog: String) async throws -> some ApplicationProtocol {
        try await buildGatewayApplication(
            config: TestConfig.base([
                "CATALOG_URLS": catalog, "PATRON_URLS": "http://127.0.0.1:1", "GATEWAY_PORT": "0", "REPLICA_DOWN_FOR": "60",
            ])
        )
    }

    @Test func spoofedInternalHeadersNeverReachTheServicesAndTheRequestIDDoes() async throws {
        try await echoUpstream().test(.live) { upstream in
            let port = try #require(upstream.port)
            try await gateway(catalog: "http://127.0.0.1:\(port)").testRouter { client in
                let headers: HTTPFields = [
                    .patronID: UUID().uuidString, .serviceToken: "guess", .clientAddress: "1.2.3.4", HTTPField.Name("X-Patron-Admin")!: "yes",
                    .requestID: "client-chosen-id-42",
                ]
                try await client.execute(uri: "/opds/lanes/new", method: .get, headers: headers) { response in
                    #expect(response.status == .ok)
                    let seen = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: String] ?? [:]
                    #expect(seen["x-patron-id"] == nil)
                    #expect(seen["x-patron-admin"] == nil)
                    #expect(seen["x-service-token"] == TestConfig.serviceToken)
                    #expect(seen["x-client-address"] != "1.2.3.4")
                    #expect(seen["x-request-id"] == "client-chosen-id-42")
                    #expect(response.headers[.requestID] == "client-chosen-id-42")
                }
            }
        }
    }

    /// The gateway is public: its metrics answer only to `METRICS_TOKEN` (and to nobody without one).
    @Test func metricsNeedTheMetricsToken() async throws {
        try await gateway(catalog: "http://127.0.0.1:1").testRouter { client in
            for headers: HTTPFields in [[:], [.authorization: "Bearer "]] {
                try await client.execute(uri: "/metrics", method: .get, headers: headers) { #expect($0.status == .unauthorized) }
            }
        }
        let config = TestConfig.base(["CATALOG_URLS": "http://127.0.0.1:1", "PATRON_URLS": "http://127.0.0.1:1", "METRICS_TOKEN": "scrape-4f1c2a"])
        try await buildGatewayApplication(config: config).testRouter { client in
            try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer scrape-4f1c"]) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer scrape-4f1c2a"]) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("# TYPE"))
            }
            try await client.execute(uri: "/health/live", method: .get) { #expect($0.status == .ok, "probes need no token") }
        }
    }

    @Test func internalRoutesAreNeverExposed() async throws {
        try await gateway(catalog: "http://127.0.0.1:1").testRouter { client in
            try await client.execute(uri: "/internal/auth/basic", method: .post) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[.contentType] == Problem.mediaType)
            }
        }
    }

    @Test func aGetIsRetriedOnTheNextReplicaWhenOneIsDown() async throws {
        try await echoUpstream().test(.live) { upstream in
            let port = try #require(upstream.port)
            try await gateway(catalog: "http://127.0.0.1:1,http://127.0.0.1:\(port)").testRouter { client in
                for _ in 0..<4 {
                    try await client.execute(uri: "/opds/lanes/new", method: .get) { #expect($0.status == .ok) }
                }
            }
        }
    }

    /// A replica that refuses connections (starting or stopping) never received the request: an upload and any other
    /// POST go on to the next replica rather than fail (CI saw a 502 for an upload sent to a catalog replica a moment
    /// before it listened, while the other replica was up). The refusing replica is never skipped here (marked down for
    /// no time), so that half the requests, in round-robin turn, start with it.
    @Test func aPostThatARefusingReplicaNeverReceivedGoesToTheNextOne() async throws {
        let router = Router()
        router.post("/admin/**") { request, _ in
            "\(request.uri.path) \(try await request.body.collect(upTo: 1 << 20).readableBytes)"
        }
        try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { upstream in
            let port = try #require(upstream.port)
            let config = TestConfig.base([
                "CATALOG_URLS": "http://127.0.0.1:1,http://127.0.0.1:\(port)", "PATRON_URLS": "http://127.0.0.1:1", "REPLICA_DOWN_FOR": "0",
            ])
            try await buildGatewayApplication(config: config).test(.live) { client in
                for path in ["/admin/books", "/admin/books/x/cover"] {
                    for _ in 0..<4 {
                        let body = ByteBuffer(repeating: 7, count: 100_000)
                        try await client.execute(uri: path, method: .post, headers: [.contentType: "application/epub+zip"], body: body) { response in
                            #expect(response.status == .ok, "\(path): \(String(buffer: response.body))")
                            #expect(String(buffer: response.body) == "\(path) 100000")
                        }
                    }
                }
            }
        }
    }

    @Test func noReplicaUpIsA502ProblemThenA503WhileMarkedDown() async throws {
        try await gateway(catalog: "http://127.0.0.1:1").testRouter { client in
            try await client.execute(uri: "/opds", method: .get) { response in
                #expect(response.status == .badGateway)
                #expect(response.headers[.contentType] == Problem.mediaType)
            }
            try await client.execute(uri: "/opds", method: .get) { #expect($0.status == .serviceUnavailable) }
        }
    }

    @Test func aBadBearerTokenIsA401WithBasicChallenge() async throws {
        try await gateway(catalog: "http://127.0.0.1:1").testRouter { client in
            try await client.execute(uri: "/opds", method: .get, headers: [.authorization: "Bearer not.a.token"]) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate]?.hasPrefix("Basic") == true)
            }
        }
    }

    /// Patron is down here (`PATRON_URLS` refuses): a valid token is accepted without its session check
    /// (docs/SECURITY.md, "Sessions").
    @Test func expiredTamperedAndForeignTokensAreRefusedAndAValidOneReachesTheService() async throws {
        let upstream = echoUpstream()
        try await upstream.test(.live) { live in
            let port = try #require(live.port)
            let keys = await AccessTokenKeys(secret: TestConfig.jwtSecret)
            let stranger = await AccessTokenKeys(secret: "another-secret-0123456789abcdef0123456789")
            let patron = UUID()
            func token(_ keys: AccessTokenKeys, issued: Date, lifetime: TimeInterval) async throws -> String {
                try await keys.sign(AccessTokenPayload(patronID: patron, sessionID: UUID(), issuedAt: issued, lifetime: lifetime))
            }
            let valid = try await token(keys, issued: Date(), lifetime: 900)
            let expired = try await token(keys, issued: Date().addingTimeInterval(-3600), lifetime: 900)
            let foreign = try await token(stranger, issued: Date(), lifetime: 900)
            var parts = valid.split(separator: ".").map(String.init)
            parts[1] = Data(#"{"sub":"\#(UUID().uuidString)","exp":9999999999,"iat":0,"sid":"x"}"#.utf8).base64EncodedString()
                .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            let tampered = parts.joined(separator: ".")
            try await gateway(catalog: "http://127.0.0.1:\(port)").testRouter { client in
                for bad in [expired, foreign, tampered] {
                    try await client.execute(uri: "/opds/x", method: .get, headers: [.authorization: "Bearer \(bad)"]) { response in
                        #expect(response.status == .unauthorized)
                    }
                }
                try await client.execute(uri: "/opds/x", method: .get, headers: [.authorization: "Bearer \(valid)"]) { response in
                    #expect(response.status == .ok)
                    let seen = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: String]
                    #expect(seen?["x-patron-id"]?.lowercased() == patron.uuidString.lowercased())
                }
            }
        }
    }

    @Test func aTokenOfAClosedOrAnotherPatronsSessionIsRefusedAndPatronIsAskedOncePerSessionAndTTL() async throws {
        let open = UUID()
        let closed = UUID()
        let asked = Mutex(0)
        let patronID = UUID()
        let patronRouter = Router()
        patronRouter.get("/internal/sessions/:id") { _, context in
            asked.withLock { $0 += 1 }
            let isOpen = context.parameters.get("id") == open.uuidString.lowercased()
            return try JSONMessages.response(SessionStatus(open: isOpen, patronId: isOpen ? patronID : nil))
        }
        let patron = Application(router: patronRouter, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        let keys = await AccessTokenKeys(secret: TestConfig.jwtSecret)
        func token(_ session: UUID, for owner: UUID = patronID) async throws -> String {
            try await keys.sign(AccessTokenPayload(patronID: owner, sessionID: session, issuedAt: Date(), lifetime: 900))
        }
        let (openToken, closedToken) = (try await token(open), try await token(closed))
        // Signed with the key, but naming another patron than the session's owner (a token minted with a leaked key
        // for someone else's open session).
        let borrowedSession = try await token(open, for: UUID())
        try await echoUpstream().test(.live) { catalog in
            try await patron.test(.live) { patronLive in
                let config = TestConfig.base([
                    "CATALOG_URLS": "http://127.0.0.1:\(try #require(catalog.port))",
                    "PATRON_URLS": "http://127.0.0.1:\(try #require(patronLive.port))",
                    "GATEWAY_PORT": "0", "SESSION_CHECK_TTL": "60s",
                ])
                try await buildGatewayApplication(config: config).testRouter { client in
                    for _ in 0..<3 {
                        try await client.execute(uri: "/opds/x", method: .get, headers: [.authorization: "Bearer \(openToken)"]) { response in
                            #expect(response.status == .ok)
                            let seen = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: String]
                            #expect(seen?["x-patron-id"]?.lowercased() == patronID.uuidString.lowercased())
                        }
                        try await client.execute(uri: "/opds/x", method: .get, headers: [.authorization: "Bearer \(borrowedSession)"]) {
                            #expect($0.status == .unauthorized)
                        }
                        try await client.execute(uri: "/opds/x", method: .get, headers: [.authorization: "Bearer \(closedToken)"]) { response in
                            #expect(response.status == .unauthorized)
                        }
                    }
                }
            }
        }
        #expect(asked.withLock { $0 } == 2, "one question per session, then the remembered answer")
    }

    @Test func rememberedAnswersExpireAndStayWithinTheirLimit() async throws {
        let answers = ExpiringAnswers<Int, String>(lifetime: 0.2, limit: 3)
        answers.remember("a", for: 1)
        #expect(answers[1] == "a" && answers[2] == nil)
        for key in 2...4 { answers.remember("\(key)", for: key) }
        #expect([1, 2, 3, 4].compactMap { answers[$0] }.count <= 3, "never more than the limit")
        #expect(answers[4] == "4", "the newest answer is kept")
        try await Task.sleep(for: .milliseconds(300))
        #expect(answers[4] == nil, "an answer past its lifetime is not given")
    }

    /// A full map drops its older half, not every answer (a client that fills it cannot sign everyone out at once).
    @Test func aFullMapOfAnswersDropsItsOlderHalf() async throws {
        // A lifetime no loaded machine outlasts: once a test took 65 s over these hundred 1 ms sleeps, and answers expired.
        let answers = ExpiringAnswers<Int, Int>(lifetime: 86_400, limit: 100)
        for key in 0..<100 {
            answers.remember(key, for: key)
            try await Task.sleep(for: .milliseconds(1))
        }
        answers.remember(100, for: 100)
        let kept = (0...100).filter { answers[$0] != nil }
        #expect(kept.count >= 40 && kept.count <= 60, "\(kept.count) kept")
        #expect(kept.contains(100) && kept.contains(99) && !kept.contains(0), "the newest kept, the oldest dropped")
    }

    @Test func oversizedBodiesAreRefused() async throws {
        try await gateway(catalog: "http://127.0.0.1:1").testRouter { client in
            let body = ByteBuffer(repeating: 0x41, count: 2 << 20)
            try await client.execute(uri: "/feedback", method: .post, body: body) { #expect($0.status.code == 413) }
        }
    }

    /// Answers up to `answerReadWholeBytes` are read whole and sent at once, larger ones streamed: every byte arrives
    /// either way, and a HEAD keeps the upstream's length without a body.
    @Test func smallAnswersAreSentWholeAndLargeOnesStreamedBothIntact() async throws {
        @Sendable func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) } }
        let router = Router()
        router.get("/opds/bytes/:count") { _, context in
            let count = try context.parameters.require("count", as: Int.self)
            return Response(
                status: .ok,
                headers: [.contentType: "application/octet-stream"],
                body: .init(byteBuffer: ByteBuffer(bytes: bytes(count)))
            )
        }
        router.head("/opds/bytes/:count") { _, context in
            let count = try context.parameters.require("count", as: Int.self)
            return Response(status: .ok, headers: [.contentType: "application/octet-stream", .contentLength: String(count)])
        }
        try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { upstream in
            let port = try #require(upstream.port)
            try await gateway(catalog: "http://127.0.0.1:\(port)").testRouter { client in
                let bound = UpstreamSender.answerReadWholeBytes
                for count in [0, 1_000, bound, bound + 1, 3 << 20] {
                    try await client.execute(uri: "/opds/bytes/\(count)", method: .get) { response in
                        #expect(response.status == .ok)
                        #expect(response.headers[.contentLength] == String(count))
                        #expect(Array(response.body.readableBytesView) == bytes(count), "\(count) bytes")
                    }
                }
                try await client.execute(uri: "/opds/bytes/5000", method: .head) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentLength] == "5000")
                    #expect(response.body.readableBytes == 0)
                }
            }
        }
    }
}
