import Foundation

/// UUIDs written lower-case wherever a model is encoded (the form RFC 9562 recommends and the one PostgreSQL and the
/// routes write; Foundation's `UUID` encodes itself upper-case). The synthesized `Encodable` of every type in a module
/// that imports Shared calls these overloads, being more specific than the generic ones; a UUID inside other text is
/// text and is left as it is.
extension KeyedEncodingContainer {
    public mutating func encode(_ value: UUID, forKey key: Key) throws { try encode(value.lowercased, forKey: key) }

    public mutating func encodeIfPresent(_ value: UUID?, forKey key: Key) throws {
        if let value { try encode(value.lowercased, forKey: key) }
    }

    public mutating func encode(_ value: [UUID], forKey key: Key) throws { try encode(value.map(\.lowercased), forKey: key) }

    public mutating func encodeIfPresent(_ value: [UUID]?, forKey key: Key) throws {
        if let value { try encode(value.map(\.lowercased), forKey: key) }
    }
}
