import Foundation

extension UUID {
    /// The lower-case form used on the wire and in URLs.
    public var lowercased: String { uuidString.lowercased() }
}
