import Foundation

/// A notification as `GET /me/notifications` lists it.
struct PatronNotification: Codable, Sendable {
    var id: UUID
    var bookId: UUID
    var kind: NotificationKind
    var title: String?
    var createdAt: Date
    var readAt: Date?
}
