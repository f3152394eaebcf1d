import Foundation
import ServiceSupport
import Shared

/// The accessibility facet of lanes and search: every book, books that can be read with text alone (a screen reader
/// or braille display: `accessModeSufficient` textual), or books that declare no hazards (flashing, motion, sound).
enum AccessibilityFacet: String, CaseIterable, Sendable {
    case all
    case screenReader = "screen-reader"
    case noHazards = "no-hazards"

    /// The SQL condition on books (nil: no condition). Set at ingest from the book's accessibility metadata.
    var condition: String? {
        switch self {
        case .all: nil
        case .screenReader: "screen_reader_friendly"
        case .noHazards: "declares_no_hazards"
        }
    }

    var label: String {
        switch self {
        case .all: "All"
        case .screenReader: "Screen-reader friendly"
        case .noHazards: "No hazards"
        }
    }

    static let group = "Accessibility"

    init(parameter: String?) throws {
        guard let facet = AccessibilityFacet(rawValue: parameter ?? "all") else {
            throw Problem.badRequest("accessibility must be one of \(AccessibilityFacet.allCases.map(\.rawValue))")
        }
        self = facet
    }
}
