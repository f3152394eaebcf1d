import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceSupport
import Synchronization
import TestSupport
import Testing

@testable import GatewayService

#if canImport(Glibc)
import Glibc
#endif

/// A client that stops reading a streamed answer is cut off after `STREAM_IDLE_TIMEOUT`, releasing the gateway's
/// connection to the service.
@Suite struct StreamIdleTimeoutTests {
    static let size = 64 << 20

    /// How many bytes the upstream has handed to its connection so far.
    final class Written: Sendable {
        let bytes = Atomic<Int>(0)
    }

    func bigUpstream(written: Written) -> some ApplicationProtocol {
        let router = Router()
        router.get("/books/**") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/epub+zip", .contentLength: "\(Self.size)"],
                body: ResponseBody(contentLength: Self.size) { writer in
                    let chunk = ByteBuffer(repeating: 0x42, count: 1 << 20)
                    for _ in 0..<(Self.size >> 20) {
                        try await writer.write(chunk)
                        written.bytes.add(chunk.readableBytes, ordering: .relaxed)
                    }
                    try await writer.finish(nil)
                }
            )
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    /// Sends a GET on a raw socket, reads nothing for `stall` and until the upstream has written nothing for `stall`
    /// (every buffer between them full: the gateway's writes have stopped, so its idle timer runs), then reads until
    /// the server closes or `limit` passes.
    func stalledRead(port: Int, stall: Duration, limit: Duration, written: Written) async throws -> (bytes: Int, closed: Bool) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var receive: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == 0)
        let request = "GET /books/1/fulfill HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        // The download has begun (a loaded machine may take a while to start it): only then does the reader stall.
        let started = ContinuousClock.now + limit
        while total == 0, ContinuousClock.now < started {
            let count = recv(fd, &buffer, 1024, 0)
            if count == 0 { return (total, true) }
            if count > 0 { total += count }
        }
        // A loaded machine may feed the gateway slowly: its writes go on completing into its send buffer, and the
        // idle timer does not start, until the upstream can write no more.
        var (seen, still) = (written.bytes.load(ordering: .relaxed), ContinuousClock.now)
        let stalledUntil = ContinuousClock.now + limit
        repeat {
            try await Task.sleep(for: .milliseconds(250))
            let now = written.bytes.load(ordering: .relaxed)
            if now != seen { (seen, still) = (now, ContinuousClock.now) }
        } while ContinuousClock.now - still < stall && ContinuousClock.now < stalledUntil
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let count = recv(fd, &buffer, buffer.count, 0)
            // The end of the stream, or the connection reset by a close with data still unsent.
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { return (total, true) }
            if count > 0 { total += count }
        }
        return (total, false)
    }

    @Test func aClientThatStopsReadingIsCutOffAfterTheIdleTimeout() async throws {
        let written = Written()
        try await bigUpstream(written: written).test(.live) { upstream in
            let port = try #require(upstream.port)
            let config = TestConfig.base([
                "CATALOG_URLS": "http://127.0.0.1:\(port)", "PATRON_URLS": "http://127.0.0.1:1", "GATEWAY_PORT": "0", "STREAM_IDLE_TIMEOUT": "1s",
            ])
            try await buildGatewayApplication(config: config).test(.live) { client in
                let gateway = try #require(client.port)
                // The limits only matter when the gateway fails to close.
                let (bytes, closed) = try await stalledRead(port: gateway, stall: .seconds(3), limit: .seconds(90), written: written)
                #expect(closed, "the gateway closed the stalled connection")
                #expect(bytes < Self.size, "and did not send the whole body: \(bytes) bytes")
            }
        }
    }
}
