import Foundation
import Shared

/// Field rules shared by sign-up and profile edits.
enum Validation {
    static func username(_ value: String) throws {
        let allowed = value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
        guard (3...32).contains(value.count), allowed, value.first?.isLetter == true else {
            throw Problem.badRequest("username must be 3 to 32 letters, digits, '.', '_' or '-', starting with a letter")
        }
    }

    static func email(_ value: String) throws {
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        let valid =
            value.count <= 254 && parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".")
            && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".") && !value.contains(where: { $0.isWhitespace || $0 == "," })
        guard valid else { throw Problem.badRequest("email must be an address like reader@example.org") }
    }

    static func pin(_ value: String, field: String = "pin") throws {
        guard (4...8).contains(value.count), value.allSatisfy(\.isASCIIDigit) else { throw Problem.badRequest("\(field) must be 4 to 8 digits") }
    }

    static func password(_ value: String) throws {
        guard value.count >= 10, value.count <= 128 else { throw Problem.badRequest("password must be 10 to 128 characters") }
        let classes = [
            value.contains(where: \.isLowercase), value.contains(where: \.isUppercase), value.contains(where: \.isNumber),
            value.contains(where: { !$0.isLetter && !$0.isNumber }),
        ].filter { $0 }.count
        guard classes >= 2, Set(value).count >= 5 else {
            throw Problem.badRequest("password is too weak: mix letters with digits or symbols and avoid repeats")
        }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
