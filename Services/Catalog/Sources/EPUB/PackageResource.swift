import Foundation

/// A resource of the package (manifest item) with its path inside the archive.
struct PackageResource: Codable, Sendable, Equatable {
    var href: String
    var type: String
    var properties: [String]
    /// Set for an embedded font that META-INF/encryption.xml says is obfuscated.
    var obfuscation: FontObfuscation? = nil
    /// An audiobook track's length in seconds.
    var duration: Double? = nil
    /// An audiobook track's title.
    var title: String? = nil
}
