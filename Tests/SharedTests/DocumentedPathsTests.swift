import Foundation
import Testing

/// The docs name files to show where a rule lives (docs/ARCHITECTURE.md's map above all): every file they name must be
/// there, so that a file moved or renamed takes its docs with it. A path from the repository's root must exist as
/// written (a `*` in its last part matching at least one file), unless `.gitignore` names it (a folder a command fills);
/// a bare file name must name a file somewhere.
@Suite struct DocumentedPathsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let roots = ["Services/", "Shared/", "Tests/", "Benchmarks/", "scripts/", "deploy/", "docs/"]

    /// Every file's path from the root, generated folders aside.
    static func files() -> [String] {
        let skipped: Set<String> = [".build", ".git", ".data", "node_modules"]
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey]) else { return [] }
        var paths: [String] = []
        let prefix = root.standardizedFileURL.path + "/"
        for case let url as URL in walker {
            if skipped.contains(url.lastPathComponent) || url.lastPathComponent.hasPrefix(".build") {
                walker.skipDescendants()
                continue
            }
            paths.append(String(url.standardizedFileURL.path.dropFirst(prefix.count)))
        }
        return paths
    }

    @Test func everyFileTheDocsNameIsThere() throws {
        let paths = Self.files()
        let present = Set(paths)
        let names = Set(paths.map { ($0 as NSString).lastPathComponent })
        let documents = ["README.md"] + paths.filter { $0.hasPrefix("docs/") && $0.hasSuffix(".md") }
        let ignored = Set(
            try String(contentsOf: Self.root.appendingPathComponent(".gitignore"), encoding: .utf8).split(separator: "\n").map(String.init)
        )
        var missing: [String] = []
        for document in documents {
            let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
            let quotes = text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
            for quoted in quotes.map({ String($0.element) }) where !ignored.contains(quoted) {
                let path = quoted.hasSuffix("/") ? String(quoted.dropLast()) : quoted
                guard !path.contains(" "), !path.contains("<"), !path.contains("{") else { continue }
                if Self.roots.contains(where: path.hasPrefix) {
                    if path.contains("*") {
                        let pattern = "^" + NSRegularExpression.escapedPattern(for: path).replacingOccurrences(of: "\\*", with: "[^/]*") + "$"
                        if !paths.contains(where: { $0.range(of: pattern, options: .regularExpression) != nil }) {
                            missing.append("\(document): \(quoted)")
                        }
                    } else if !present.contains(path) {
                        missing.append("\(document): \(quoted)")
                    }
                } else if path.range(of: #"^[A-Za-z0-9+_-]+\.(swift|js|py|sh)$"#, options: .regularExpression) != nil, !names.contains(path) {
                    missing.append("\(document): \(quoted)")
                }
            }
        }
        #expect(missing.isEmpty, "named in the docs but not in the repository:\n\(missing.joined(separator: "\n"))")
    }
}
