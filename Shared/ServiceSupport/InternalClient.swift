import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Shared
import Synchronization

/// HTTP/JSON client for `/internal/...` routes of another service: adds the service token and the current
/// request id, applies a timeout, round-robins over the service's replicas and tries the next one when a
/// connection cannot be made.
public final class InternalClient: Sendable {
    /// The other service answered with an error status, or could not be reached.
    public enum Failure: Error, CustomStringConvertible {
        case status(Int, Problem?)
        case unreachable(String)

        public var description: String {
            switch self {
            case .status(let code, let problem): "upstream answered \(code)\(problem.map { ": \($0.detail ?? $0.title)" } ?? "")"
            case .unreachable(let reason): "upstream unreachable: \(reason)"
            }
        }
    }

    let baseURLs: [String]
    let token: ServiceToken
    let timeout: TimeAmount
    let httpClient: HTTPClient
    private let next = Atomic<Int>(0)

    public init(baseURLs: [String], token: ServiceToken, timeout: Duration = .seconds(5), httpClient: HTTPClient = .service) {
        self.baseURLs = baseURLs
        self.token = token
        self.timeout = .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
        self.httpClient = httpClient
    }

    /// `GET path` decoded as `T`.
    public func get<T: Decodable>(_ path: String, as type: T.Type = T.self, headers: [(String, String)] = [], logger: Logger) async throws -> T {
        let data = try await send(method: .GET, path: path, body: nil, headers: headers, logger: logger)
        return try WireFormat.decoder().decode(T.self, from: data)
    }

    /// `method path` with `body` encoded as JSON, decoded as `T`.
    public func send<B: Encodable, T: Decodable>(
        _ method: HTTPMethod,
        _ path: String,
        body: B,
        as type: T.Type = T.self,
        headers: [(String, String)] = [],
        logger: Logger
    ) async throws -> T {
        let data = try await send(method: method, path: path, body: try WireFormat.encode(body), headers: headers, logger: logger)
        return try WireFormat.decoder().decode(T.self, from: data)
    }

    /// `method path` with a raw JSON body; returns the response body of a 2xx answer.
    @discardableResult
    public func send(method: HTTPMethod, path: String, body: Data?, headers: [(String, String)] = [], logger: Logger) async throws -> Data {
        let start = next.add(1, ordering: .relaxed).oldValue
        var lastError: any Error = Failure.unreachable("no replica configured")
        for attempt in 0..<baseURLs.count {
            let base = baseURLs[(start + attempt) % baseURLs.count]
            var request = HTTPClientRequest(url: base + path)
            request.method = method
            request.headers.add(name: InternalHeader.serviceToken, value: token.value)
            request.headers.add(name: InternalHeader.requestID, value: RequestID.current ?? RequestID.make())
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            if let body {
                request.headers.add(name: "Content-Type", value: MediaType.json)
                request.body = .bytes(ByteBuffer(bytes: body))
            }
            do {
                let response = try await httpClient.execute(request, timeout: timeout, logger: logger)
                let buffer = try await response.body.collect(upTo: 16 * 1024 * 1024)
                let data = Data(buffer: buffer)
                guard (200..<300).contains(Int(response.status.code)) else {
                    throw Failure.status(Int(response.status.code), try? WireFormat.decoder().decode(Problem.self, from: data))
                }
                return data
            } catch let error as Failure {
                throw error
            } catch {
                logger.debug("Internal call failed", metadata: ["url": "\(base + path)", "error": "\(error)"])
                lastError = Failure.unreachable("\(error)")
            }
        }
        throw lastError
    }
}
