import Foundation
import Hummingbird
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// `/me`, `/me/settings` and `/me/notifications`.
struct ProfileController: Sendable {
    let profiles: ProfilePostgresRepository
    let emailChanges: EmailChangeLimits
    let notifications: NotificationPostgresRepository
    let circulation: CirculationPostgresRepository
    let publicURL: String

    func add(to me: some RouterMethods<SignedInRequestContext>) {
        me.get(.me, use: get)
        me.patch(.me, use: edit)
        me.delete(.me, use: delete)
        me.get(.settings, use: getSettings)
        me.put(.settings, use: putSettings)
        me.get(.notifications, use: notifications)
        me.post(.notificationRead(.key), use: markRead)
    }

    /// `GET /me` → the profile (JSON, or OPDS User Profile for `Accept: application/opds-profile+json`).
    func get(request: Request, context: SignedInRequestContext) async throws -> Response {
        // The profile's own query tells whether the patron still exists: no separate check.
        let patronID = context.patronID
        guard let profile = try await profiles.profile(patronID: patronID, logger: context.logger) else {
            throw AuthenticationRequired()
        }
        if request.headers[.accept]?.contains(OPDSProfile.mediaType) == true {
            return try JSONMessages.response(OPDSProfile(profile, publicURL: publicURL), contentType: OPDSProfile.mediaType)
        }
        return try JSONMessages.response(profile, headers: [.cacheControl: "private, no-store"])
    }

    struct ProfileEdit: Decodable {
        var displayName: String?
        var bio: String?
        var email: String?

        enum CodingKeys: String, CodingKey, CaseIterable { case displayName, bio, email }

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(Set(CodingKeys.allCases.map(\.rawValue)))
            let container = try decoder.container(keyedBy: CodingKeys.self)
            displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
            bio = try container.decodeIfPresent(String.self, forKey: .bio)
            email = try container.decodeIfPresent(String.self, forKey: .email)
        }
    }

    /// `PATCH /me` `{displayName?, bio?, email?}` → the profile. A new address is unconfirmed until its link is
    /// followed, whoever else has claimed it (no 409 here: that told whether an address was registered); 429 past
    /// `EmailChangeLimits`.
    func edit(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let edit = try await JSONMessages.decode(ProfileEdit.self, from: request)
        if let name = edit.displayName, name.count > 100 { throw Problem.badRequest("displayName must be at most 100 characters") }
        if let bio = edit.bio, bio.count > 2000 { throw Problem.badRequest("bio must be at most 2000 characters") }
        if let email = edit.email { try Validation.email(email) }
        try await profiles.edit(
            patronID: patronID,
            displayName: edit.displayName,
            bio: edit.bio,
            email: edit.email,
            changes: emailChanges,
            logger: context.logger
        )
        // A new address is mailed its confirmation link (one an hour at most for one address).
        if edit.email != nil {
            _ = try await MailPostgresRepository(client: profiles.client).requestVerification(patronID: patronID, logger: context.logger)
        }
        return try await get(request: request, context: context)
    }

    /// `DELETE /me` → 204. Returns the loans, cancels the holds (advancing each queue) and erases every row of
    /// the patron, in one transaction.
    func delete(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let logger = context.logger
        try await profiles.deleteAccount(patronID: patronID, circulation: circulation, logger: logger)
        logger.info("Patron deleted", metadata: ["patron.id": "\(patronID)"])
        return Response(status: .noContent).announcingCredentialsChanged(of: patronID)
    }

    /// `GET /me/settings` → the reader settings (defaults until set).
    func getSettings(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        return try JSONMessages.response(try await profiles.settings(patronID: patronID, logger: context.logger))
    }

    struct StrictSettings: Decodable {
        var settings: ReaderSettings

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(["fontFamily", "fontSize", "theme", "brightness", "syncBookmarks"])
            settings = try ReaderSettings(from: decoder)
        }
    }

    /// `PUT /me/settings` → replaces the settings; unknown keys and out-of-range values are refused.
    func putSettings(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let settings = try await JSONMessages.decode(StrictSettings.self, from: request).settings
        if let failure = settings.validationFailure { throw Problem.badRequest(failure) }
        try await profiles.saveSettings(settings, patronID: patronID, logger: context.logger)
        return try JSONMessages.response(settings)
    }

    /// `GET /me/notifications` → `{"notifications": [...], "unread": N}`.
    func notifications(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let list = try await notifications.list(patronID: patronID, logger: context.logger)
        struct Body: Encodable {
            var notifications: [PatronNotification]
            var unread: Int
        }
        return try JSONMessages.response(Body(notifications: list, unread: list.filter { $0.readAt == nil }.count))
    }

    /// `POST /me/notifications/{id}/read` → 204; 404 for another patron's or an unknown notification.
    func markRead(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let id = try context.uuid("id")
        guard try await notifications.markRead(id: id, patronID: patronID, logger: context.logger) else {
            throw Problem.notFound("No notification \(id)")
        }
        return Response(status: .noContent)
    }
}
