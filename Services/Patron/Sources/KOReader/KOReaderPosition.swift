import Foundation
import Shared

/// Between KOReader's progress (a percentage of the book and a crengine XPointer such as
/// `/body/DocFragment[12]/body/div/p[3]/text().0`, DocFragment numbering the reading order from 1) and the web
/// reader's locator, whose `totalProgression` counts every item of the reading order as an equal share of the book
/// (`reader.js`). Each side keeps what it can read: KOReader's XPointer is returned to KOReader verbatim; a web
/// reader's place reaches KOReader as its percentage and the start of its chapter.
enum KOReaderPosition {
    /// The reading-order item an XPointer names, counted from 0 (nil for anything else, a PDF's page number too).
    static func chapter(of xpointer: String) -> Int? {
        guard xpointer.hasPrefix("/body/DocFragment[") else { return nil }
        let digits = xpointer.dropFirst("/body/DocFragment[".count).prefix { $0.isNumber }
        guard let number = Int(digits), number >= 1 else { return nil }
        return number - 1
    }

    /// The web reader's locator for KOReader's place in a book whose reading order is `order` (nil for an empty
    /// order): the chapter the XPointer names when it is in the book, else the one the percentage falls in.
    static func locator(percentage: Double, xpointer: String, order: [String]) -> Locator? {
        BookProgress.locator(percentage: percentage, chapter: chapter(of: xpointer), order: order)
    }

    /// KOReader's place for a web reader's locator: its percentage of the book and the XPointer of the start of its
    /// chapter.
    static func progress(of locator: Locator, order: [String]) -> (percentage: Double, xpointer: String) {
        let chapter = BookProgress.chapter(of: locator, order: order) ?? 0
        return (BookProgress.percentage(of: locator, order: order), "/body/DocFragment[\(chapter + 1)]/body")
    }
}
