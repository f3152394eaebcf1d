import Foundation
import Shared

/// A place in a book as a share of the whole, as the web reader counts it (`reader.js`): every item of the reading
/// order an equal share, `totalProgression` = (chapter + progression within it) / chapters. Readers that send only a
/// percentage (KOReader, OPDS Progression clients) are placed in the web reader's terms by it.
enum BookProgress {
    /// The locator at `percentage` of a book whose reading order is `order`, in `chapter` (counted from 0) when it is
    /// one of the book's, else in the chapter the percentage falls in; nil for an empty order.
    static func locator(percentage: Double, chapter: Int?, fragment: String? = nil, order: [String]) -> Locator? {
        guard !order.isEmpty else { return nil }
        let total = min(max(percentage.isFinite ? percentage : 0, 0), 1)
        let share = total * Double(order.count)
        let chapter = chapter.flatMap { (0..<order.count).contains($0) ? $0 : nil } ?? min(order.count - 1, Int(share))
        let within = min(max(share - Double(chapter), 0), 1)
        return Locator(
            href: order[chapter] + (fragment.map { "#" + $0 } ?? ""),
            type: "application/xhtml+xml",
            locations: .init(progression: rounded(within), totalProgression: rounded(total))
        )
    }

    /// The share of the book at `locator`: its `totalProgression`, or its chapter's share and the progression in it.
    static func percentage(of locator: Locator, order: [String]) -> Double {
        if let total = locator.locations.totalProgression { return rounded(total) }
        guard let chapter = chapter(of: locator, order: order) else { return 0 }
        return rounded((Double(chapter) + (locator.locations.progression ?? 0)) / Double(order.count))
    }

    /// The reading-order item a locator is in, counted from 0.
    static func chapter(of locator: Locator, order: [String]) -> Int? {
        order.firstIndex(of: PublicationPath.archivePath(of: locator.href))
    }

    /// Six decimals, as the web reader writes them.
    static func rounded(_ value: Double) -> Double { (value * 1_000_000).rounded() / 1_000_000 }
}
