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
        return NewAccount(
            barcode: Barcode.generate(),
            username: username,
            email: email,
            secret: password,
            displayName: name.isEmpty ? username : name
        )
    }
}

extension SignupRequest.CodingKeys: CaseIterable {}
