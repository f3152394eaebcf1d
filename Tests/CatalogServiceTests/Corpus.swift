import Foundation
import TestSupport
import Testing

/// The rows of ../shared/epubs/INDEX.tsv.
struct CorpusBook: Sendable, CustomStringConvertible {
    var file: URL
    var shouldIngest: String
    var title: String
    var toc: String

    var description: String { file.lastPathComponent }

    /// The first `nav(N entries, depth D)` or `ncx(…)` of the toc column, as (count, depth).
    var expectedTOC: (count: Int, depth: Int)? {
        guard let range = toc.range(of: #"\((\d+) entries, depth (\d+)\)"#, options: .regularExpression) else { return nil }
        let numbers = toc[range].split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
    }

    /// `count` valid books: the corpus's first when it is beside the repository, otherwise generated ones.
    static func valid(_ count: Int) async -> [URL] {
        if TestTools.corpusIsPresent { return all.filter { $0.shouldIngest == "yes" }.prefix(count).map(\.file) }
        return await TestTools.generatedBooks(count: count)
    }

    static let all: [CorpusBook] = {
        let directory = TestTools.corpusDirectory
        guard let text = try? String(contentsOf: directory.appendingPathComponent("INDEX.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count >= 18 else { return nil }
            return CorpusBook(file: directory.appendingPathComponent(columns[0]), shouldIngest: columns[7], title: columns[14], toc: columns[17])
        }
    }()
}

extension Trait where Self == ConditionTrait {
    /// A test of particular books of the third-party corpus: skipped, with the reason, when it is not there.
    static var needsCorpus: Self { .enabled(if: TestTools.corpusIsPresent, Comment(rawValue: TestTools.corpusMissing)) }
}
