import Foundation

/// Something that happened to a patron's books, as `GET /me/events` sends it: its number (the stream's `id`), its kind
/// (the stream's `event`: a notification's kind, or `shelf_changed`), and the book it is about.
struct PatronEvent: Encodable, Sendable {
    let seq: Int64
    let kind: String
    let bookId: UUID?
    let title: String?
    let at: Date

    /// Every kind a client may hear besides the notifications' (`NotificationKind`): the patron's loans, holds or
    /// notifications changed (on another device, a queue that moved, a notification read).
    static let shelfChanged = "shelf_changed"
}
