import Foundation
import Shared

/// Body of `POST /auth/signup`: either `{username, email, password}` or `{barcode, pin}`, plus an optional
/// display name. Unknown keys are refused.
struct SignupRequest: Decodable {
    var username: String?
    var email: String?
    var password: String?
    var barcode: String?
    var pin: String?
    var displayName: String?

    enum CodingKeys: String, CodingKey { case username, email, password, barcode, pin, displayName }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(Set(CodingKeys.allCases.map(\.rawValue)))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        username = try container.decodeIfPresent(String.self, forKey: .username)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        password = try container.decodeIfPresent(String.self, forKey: .password)
        barcode = try container.decodeIfPresent(String.self, forKey: .barcode)
        pin = try container.decodeIfPresent(String.self, forKey: .pin)
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
    }

    /// The validated account to create, or a 400 problem naming the first bad field.
    func validated() throws -> NewAccount {
        let name = displayName?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard name.count <= 100 else { throw Problem.badRequest("displayName must be at most 100 characters") }
        if let pin {
            guard password == nil, username == nil else { throw Problem.badRequest("Give either {username, email, password} or {barcode, pin}") }
            try Validation.pin(pin)
            if let barcode, !Barcode.isValid(barcode) {
                throw Problem.badRequest("barcode must be 14 digits ending in a valid check digit")
            }
            if let email { try Validation.email(email) }
            return NewAccount(barcode: barcode ?? Barcode.generate(), username: nil, email: email, secret: pin, displayName: name)
        }
        guard let username, let email, let password else {
            throw Problem.badRequest("Give either {username, email, password} or {barcode, pin}")
        }
        guard barcode == nil else { throw Problem.badRequest("barcode goes with pin, not with password") }
        try Validation.username(username)
        try Validation.email(email)
        try Validation.password(password)
        return NewAccount(barcode: Barcode.generate(), username: username, email: email, secret: password, displayName: name.isEmpty ? username : name)
    }
}

/// A validated account, ready to be stored.
struct NewAccount {
    var barcode: String
    var username: String?
    var email: String?
    var secret: String
    var displayName: String
}

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
        let valid = value.count <= 254 && parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".")
            && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".") && !value.contains(where: { $0.isWhitespace || $0 == "," })
        guard valid else { throw Problem.badRequest("email must be an address like reader@example.org") }
    }

    static func pin(_ value: String, field: String = "pin") throws {
        guard (4...8).contains(value.count), value.allSatisfy(\.isASCIIDigit) else { throw Problem.badRequest("\(field) must be 4 to 8 digits") }
    }

    static func password(_ value: String) throws {
        guard value.count >= 10, value.count <= 128 else { throw Problem.badRequest("password must be 10 to 128 characters") }
        let classes = [value.contains(where: \.isLowercase), value.contains(where: \.isUppercase), value.contains(where: \.isNumber),
                       value.contains(where: { !$0.isLetter && !$0.isNumber })].filter { $0 }.count
        guard classes >= 2, Set(value).count >= 5 else {
            throw Problem.badRequest("password is too weak: mix letters with digits or symbols and avoid repeats")
        }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension SignupRequest.CodingKeys: CaseIterable {}
