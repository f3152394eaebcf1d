import Foundation

/// Catalog's `GET /internal/shelf-announcements?epoch=E&after=N`: the shelf versions a catalog replica heard announced
/// after number `N` of its epoch `E`, in the order heard, so that a gateway knows when what it keeps of a patron's
/// shelf (`ShelfSummary`) is out of date. `reset`: the follower cannot know what it missed (another epoch, or too far
/// behind) and forgets everything it keeps; it then follows from `next`. `current`: the replica hears every
/// announcement now (while it does not, a follower keeps nothing long).
public struct ShelfAnnouncements: Codable, Sendable, Equatable {
    public struct Change: Codable, Sendable, Equatable {
        public var patron: UUID
        public var version: Int64

        public init(patron: UUID, version: Int64) {
            self.patron = patron
            self.version = version
        }
    }

    public var epoch: String
    /// The number of the last change given (or, with none, of the last one the follower had).
    public var next: Int64
    public var reset: Bool
    public var current: Bool
    public var changes: [Change]

    public init(epoch: String, next: Int64, reset: Bool, current: Bool = true, changes: [Change]) {
        self.epoch = epoch
        self.next = next
        self.reset = reset
        self.current = current
        self.changes = changes
    }
}
