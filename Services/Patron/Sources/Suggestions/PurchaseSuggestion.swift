import Foundation
import ServiceSupport
import Shared

/// A patron's request that the library buy a title, as the patron and staff see it. A suggestion merged into
/// another follows its status and answer.
struct PurchaseSuggestion: Codable, Sendable, Equatable {
    enum Status: String, Codable, Sendable, CaseIterable {
        case open, ordered, declined, arrived
    }

    var id: UUID
    var title: String
    var author: String?
    var note: String?
    var status: Status
    var answer: String?
    /// The book that arrived for it.
    var bookId: UUID?
    var createdAt: Date
    /// Staff's list only: how many patrons asked (this suggestion and those merged into it).
    var askedBy: Int?

    /// The title as matching sees it: lower case, letters and digits only, words one space apart; a leading article
    /// dropped ("The Hobbit" and "hobbit" are one title).
    static func titleKey(_ title: String) -> String {
        let letters: [Character] = title.lowercased().map { character in character.isLetter || character.isNumber ? character : " " }
        let words: [String] = String(letters).split(separator: " ").map(String.init)
        let articles: Set<String> = ["the", "a", "an", "le", "la", "les", "l"]
        let kept: [String] = words.count > 1 && articles.contains(words[0]) ? Array(words.dropFirst()) : words
        return kept.joined(separator: " ")
    }
}

/// `POST /me/suggestions` `{title, author?, note?}`: a title of 1 to 300 characters, an author up to 200, a note up
/// to 500; nothing else.
struct SuggestionRequest: Decodable {
    var title: String
    var author: String?
    var note: String?

    enum CodingKeys: String, CodingKey, CaseIterable { case title, author, note }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(Set(CodingKeys.allCases.map(\.rawValue)))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title).trimmingCharacters(in: .whitespacesAndNewlines)
        author = try container.decodeIfPresent(String.self, forKey: .author)?.trimmingCharacters(in: .whitespacesAndNewlines)
        note = try container.decodeIfPresent(String.self, forKey: .note)?.trimmingCharacters(in: .whitespacesAndNewlines)
        if author?.isEmpty == true { author = nil }
        if note?.isEmpty == true { note = nil }
    }

    func validated() throws -> Self {
        guard (1...300).contains(title.count), !PurchaseSuggestion.titleKey(title).isEmpty else {
            throw Problem.badRequest("title must be 1 to 300 characters, with a letter or digit")
        }
        guard (author?.count ?? 0) <= 200 else { throw Problem.badRequest("author must be at most 200 characters") }
        guard (note?.count ?? 0) <= 500 else { throw Problem.badRequest("note must be at most 500 characters") }
        return self
    }
}
