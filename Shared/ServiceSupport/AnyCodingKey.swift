import Foundation
import Hummingbird
import NIOCore
import NIOFoundationCompat
import Shared

/// Keys of a JSON object that a strict decoder refuses when unknown.
public struct AnyCodingKey: CodingKey {
    public var stringValue: String
    public var intValue: Int?
    public init(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) {
        self.stringValue = "\(intValue)"
        self.intValue = intValue
    }
}

extension Decoder {
    /// Throws when the JSON object has keys other than `allowed` (for "unknown keys are refused").
    public func rejectUnknownKeys(_ allowed: Set<String>) throws {
        let container = try container(keyedBy: AnyCodingKey.self)
        if let unknown = container.allKeys.first(where: { !allowed.contains($0.stringValue) }) {
            throw DecodingError.dataCorruptedError(forKey: unknown, in: container, debugDescription: "unknown key \(unknown.stringValue)")
        }
    }
}

extension RequestContext {
    /// The path parameter `name` as a UUID; a 400 problem when it is not one.
    public func uuid(_ name: String) throws -> UUID {
        guard let text = parameters.get(name), let id = UUID(uuidString: text) else {
            throw Problem.badRequest("\(name) must be a UUID")
        }
        return id
    }
}
