import Foundation

/// A book's accessibility metadata (schema.org properties and EPUB Accessibility conformance), in the shape of the
/// Readium Web Publication Manifest's accessibility object (`a11y.schema.json`), which OPDS 2.0 publications and
/// manifests carry as `metadata.accessibility`. Values outside that schema's vocabularies are dropped.
struct Accessibility: Codable, Sendable, Equatable {
    struct Certification: Codable, Sendable, Equatable {
        var certifiedBy: String?
        var credential: String?
        var report: String?
    }

    var conformsTo: [String] = []
    var certification: Certification?
    var summary: String?
    var accessMode: [String] = []
    /// Each entry is a set of modes that together suffice to use the book (`[["textual"], ["auditory", "visual"]]`).
    var accessModeSufficient: [[String]] = []
    var feature: [String] = []
    var hazard: [String] = []

    var isEmpty: Bool {
        conformsTo.isEmpty && certification == nil && summary == nil && accessMode.isEmpty && accessModeSufficient.isEmpty && feature.isEmpty
            && hazard.isEmpty
    }

    /// The book can be read with text alone (a screen reader or braille display): `accessModeSufficient` textual.
    var isScreenReaderFriendly: Bool { accessModeSufficient.contains(["textual"]) }

    /// The book declares that it has none of the three hazards (flashing, motion simulation, sound).
    var declaresNoHazards: Bool {
        hazard.contains("none") || Set(["noFlashingHazard", "noMotionSimulationHazard", "noSoundHazard"]).isSubset(of: hazard)
    }

    /// A sentence or few for people, as the Readium display guide orders them: how the book can be read, its
    /// hazards, what it conforms to and who certified it, then the publisher's own summary.
    var readableSummary: String? {
        var parts: [String] = []
        if isScreenReaderFriendly {
            parts.append("Readable with a screen reader or braille display: the text alone conveys the content.")
        } else if !accessModeSufficient.isEmpty {
            parts.append("Needs " + accessModeSufficient.map { $0.joined(separator: " and ") }.joined(separator: ", or ") + " reading.")
        }
        let features = feature.filter { $0 != "none" && $0 != "unknown" }.compactMap { Self.featureNames[$0] }
        if !features.isEmpty { parts.append("Features: " + features.joined(separator: ", ") + ".") }
        if declaresNoHazards {
            parts.append("No hazards.")
        } else {
            let hazards = hazard.compactMap { Self.hazardNames[$0] }
            if !hazards.isEmpty { parts.append("Hazards: " + hazards.joined(separator: ", ") + ".") }
        }
        if let profile = conformsTo.lazy.compactMap(Self.profileName).first { parts.append("Conforms to \(profile).") }
        if let certifiedBy = certification?.certifiedBy { parts.append("Certified by \(certifiedBy).") }
        if let summary { parts.append(summary) }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    static let featureNames = [
        "alternativeText": "alternative text for images", "longDescription": "long descriptions", "tableOfContents": "table of contents",
        "structuralNavigation": "structural navigation", "readingOrder": "logical reading order", "pageNavigation": "page navigation",
        "printPageNumbers": "print page numbers", "pageBreakMarkers": "page break markers", "index": "index", "MathML": "MathML",
        "describedMath": "described mathematics", "ARIA": "ARIA roles", "displayTransformability": "adjustable display",
        "synchronizedAudioText": "synchronised audio and text", "ttsMarkup": "text-to-speech hints", "largePrint": "large print",
        "highContrastDisplay": "high contrast", "transcript": "transcripts", "captions": "captions", "braille": "braille",
    ]
    static let hazardNames = [
        "flashing": "flashing", "motionSimulation": "motion simulation", "sound": "sound", "unknown": "not known",
        "unknownFlashingHazard": "flashing not known", "unknownMotionSimulationHazard": "motion simulation not known",
        "unknownSoundHazard": "sound not known",
    ]

    /// "EPUB Accessibility 1.1, WCAG 2.2 Level AA" for the profiles of EPUB Accessibility 1.0 and 1.1.
    static func profileName(_ uri: String) -> String? {
        if let level = uri.firstMatch(of: #/accessibility-20170105\.html#wcag-(a{1,3})$/#)?.1 {
            return "EPUB Accessibility 1.0, WCAG 2.0 Level \(level.uppercased())"
        }
        if let match = uri.firstMatch(of: #/epub-a11y-11#wcag-(2\.[0-9])-(a{1,3})$/#) {
            return "EPUB Accessibility 1.1, WCAG \(match.1) Level \(match.2.uppercased())"
        }
        return nil
    }
}
