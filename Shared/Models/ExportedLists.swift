import Foundation

/// Answer of catalog's `GET /internal/patrons/{id}/lists`: the patron's own lists with their books in order, for the
/// patron's data export.
public struct ExportedLists: Codable, Sendable, Equatable {
    public struct List: Codable, Sendable, Equatable {
        public var id: UUID
        public var title: String
        public var description: String
        public var isPublic: Bool
        public var books: [UUID]
        public var createdAt: Date
        public var updatedAt: Date

        enum CodingKeys: String, CodingKey {
            case id, title, description
            case isPublic = "public"
            case books, createdAt, updatedAt
        }

        public init(id: UUID, title: String, description: String, isPublic: Bool, books: [UUID], createdAt: Date, updatedAt: Date) {
            self.id = id
            self.title = title
            self.description = description
            self.isPublic = isPublic
            self.books = books
            self.createdAt = createdAt
            self.updatedAt = updatedAt
        }
    }

    public var lists: [List]

    public init(lists: [List]) { self.lists = lists }
}
