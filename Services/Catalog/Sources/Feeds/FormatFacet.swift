import ServiceSupport
import Shared

/// The format facet of lanes: every book, or only ebooks, PDFs or audiobooks (`?format=`).
enum FormatFacet: String, CaseIterable, Sendable {
    case all
    case epub
    case pdf
    case audiobook

    /// The SQL condition on books (nil: no condition); the values are the enum's own, never the request's text.
    var condition: String? { self == .all ? nil : "format = '\(rawValue)'" }

    var label: String { BookFormat(rawValue: rawValue)?.title ?? "All formats" }

    static let group = "Format"

    init(parameter: String?) throws {
        guard let facet = FormatFacet(rawValue: parameter ?? "all") else {
            throw Problem.badRequest("format must be one of \(FormatFacet.allCases.map(\.rawValue))")
        }
        self = facet
    }
}
