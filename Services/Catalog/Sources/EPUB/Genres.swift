/// The fixed genre list behind the genre lanes, and the mapping of free-form subjects onto it.
enum Genres {
    /// Genre slug → (display name, subject keywords that map to it).
    static let all: [(slug: String, name: String, keywords: [String])] = [
        ("fiction", "Fiction", ["fiction", "novel", "roman", "stories", "literature", "littérature"]),
        ("mystery", "Mystery & Thriller", ["mystery", "detective", "crime", "thriller", "policier", "suspense"]),
        ("science-fiction", "Science Fiction & Fantasy", ["science fiction", "sci-fi", "fantasy", "dystopia", "space"]),
        ("romance", "Romance", ["romance", "love"]),
        ("horror", "Horror", ["horror", "ghost", "gothic"]),
        ("poetry", "Poetry", ["poetry", "poems", "poésie", "verse"]),
        ("drama", "Drama", ["drama", "plays", "tragedy", "comedy", "théâtre"]),
        ("history", "History", ["history", "historical", "histoire", "war"]),
        ("biography", "Biography & Memoir", ["biography", "memoir", "autobiography"]),
        ("science", "Science & Nature", ["science", "nature", "physics", "biology", "mathematics", "chemistry"]),
        ("philosophy", "Philosophy & Religion", ["philosophy", "religion", "ethics"]),
        ("children", "Children & Young Adult", ["children", "juvenile", "young adult", "fairy", "jeunesse"]),
        ("adventure", "Adventure", ["adventure", "sea stories", "travel", "voyages"]),
        ("reference", "Reference & Technology", ["reference", "computers", "technology", "epub", "specification", "manual"]),
        ("nonfiction", "Nonfiction", ["nonfiction", "non-fiction", "essays", "economics", "politics", "social"]),
    ]

    /// The genres that `subjects` map to, in list order.
    static func genres(for subjects: [String]) -> [String] {
        let lowered = subjects.map { $0.lowercased() }
        return all.filter { genre in lowered.contains { subject in genre.keywords.contains { subject.contains($0) } } }.map(\.slug)
    }

    static func name(of slug: String) -> String? { all.first { $0.slug == slug }?.name }
}
