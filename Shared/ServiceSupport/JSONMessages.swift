import Foundation
import Hummingbird
import NIOCore
import NIOFoundationCompat
import Shared

/// Reading JSON request bodies and writing JSON responses in the wire format.
public enum JSONMessages {
    /// Decodes the request body as `T`, refusing bodies over `limit` bytes (413) and malformed JSON or wrong types (400).
    public static func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int = 64 * 1024) async throws -> T {
        try decode(type, from: try await body(of: request, limit: limit))
    }

    /// The request body, refusing bodies over `limit` bytes with a 413 problem.
    public static func body(of request: Request, limit: Int = 64 * 1024) async throws -> Data {
        do {
            return Data(buffer: try await request.body.collect(upTo: limit))
        } catch {
            throw Problem.tooLarge("The body must not exceed \(limit) bytes")
        }
    }

    /// Decodes `data` as `T`, turning every decoding failure into a 400 problem naming the offending field.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do {
            return try WireFormat.decoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw Problem.badRequest(describe(error))
        } catch {
            throw Problem.badRequest("The body is not valid JSON")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.isEmpty ? "the body" : keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .typeMismatch(let type, let context): return "\(path(context.codingPath)) must be of type \(type)"
        case .valueNotFound(_, let context): return "\(path(context.codingPath)) must not be null"
        case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])) is required"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "The body is not valid JSON" : "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "The body could not be read"
        }
    }

    /// `value` encoded as `application/json` (or `contentType`).
    public static func response<T: Encodable>(
        _ value: T,
        status: HTTPResponse.Status = .ok,
        contentType: String = MediaType.json,
        headers: HTTPFields = [:]
    ) throws -> Response {
        var headers = headers
        headers[.contentType] = contentType
        let data = try WireFormat.encode(value)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `value` written as `application/json` by its own `JSONWritable` conformance (hot paths), as `response` would.
    public static func response(
        writing value: some JSONWritable,
        status: HTTPResponse.Status = .ok,
        headers: HTTPFields = [:]
    ) -> Response {
        var headers = headers
        headers[.contentType] = MediaType.json
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: JSONWriter.bytes(of: value, capacity: 1024))))
    }
}
