import Foundation

/// Reads accessibility metadata from a package document's `<metadata>`, EPUB 3 (`<meta property="schema:…">text`,
/// `<link rel="dcterms:conformsTo">`, certifier refinements) and EPUB 2 (`<meta name="schema:…" content="…">`),
/// following the Readium architecture note "Parsing Accessibility Metadata" and the DAISY Knowledge Base. Values
/// outside the Readium accessibility schema's vocabularies are dropped, so the result always validates.
enum AccessibilityReader {
    static func read(_ metadata: XMLNode) -> Accessibility? {
        // (property, value, id) of every meta in either form, and the links' (rel, href).
        var metas: [(property: String, value: String, id: String?, refines: String?)] = []
        for meta in metadata.children("meta") {
            if let property = meta["property"] {
                metas.append((property, meta.allText, meta["id"], meta["refines"].map { String($0.drop(while: { $0 == "#" })) }))
            } else if let name = meta["name"], let content = meta["content"] {
                metas.append((name, content.collapsingWhitespace, nil, nil))
            }
        }
        let links = metadata.children("link").compactMap { link -> (rel: [String], href: String, refines: String?)? in
            guard let href = link["href"] else { return nil }
            return ((link["rel"] ?? "").split(separator: " ").map(String.init), href, link["refines"].map { String($0.drop(while: { $0 == "#" })) })
        }
        func values(_ property: String) -> [String] {
            metas.filter { $0.property == property && $0.refines == nil }.map(\.value).filter { !$0.isEmpty }
        }
        func unique(_ list: [String]) -> [String] {
            var seen = Set<String>()
            return list.filter { seen.insert($0).inserted }
        }

        var result = Accessibility()
        result.accessMode = unique(values("schema:accessMode").flatMap(Self.list).filter(Self.accessModes.contains))
        var sufficient: [[String]] = []
        for value in values("schema:accessModeSufficient") {
            let set = unique(Self.list(value).filter(Self.primaryAccessModes.contains))
            if !set.isEmpty, !sufficient.contains(set) { sufficient.append(set) }
        }
        result.accessModeSufficient = sufficient
        result.feature = unique(values("schema:accessibilityFeature").flatMap(Self.list).filter(Self.features.contains))
        result.hazard = unique(values("schema:accessibilityHazard").flatMap(Self.list).filter(Self.hazards.contains))
        result.summary = values("schema:accessibilitySummary").first
        result.conformsTo = unique(
            (values("dcterms:conformsTo") + links.filter { $0.rel.contains("dcterms:conformsTo") && $0.refines == nil }.map(\.href))
                .compactMap(Self.profile)
        )

        // The certifier: `a11y:certifiedBy`, with its credential and report as refinements of it or on their own.
        if let certifier = metas.first(where: { $0.property == "a11y:certifiedBy" && !$0.value.isEmpty }) {
            let refining = { (meta: (property: String, value: String, id: String?, refines: String?)) in
                meta.refines == nil || meta.refines == certifier.id
            }
            let credential = metas.first { $0.property == "a11y:certifierCredential" && refining($0) }?.value
            let report =
                links.first { $0.rel.contains("a11y:certifierReport") && ($0.refines == nil || $0.refines == certifier.id) }?.href
                ?? metas.first { $0.property == "a11y:certifierReport" && refining($0) }?.value
            result.certification = Accessibility.Certification(certifiedBy: certifier.value, credential: credential, report: report)
        }
        return result.isEmpty ? nil : result
    }

    /// "textual, visual" → ["textual", "visual"].
    static func list(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// A conformance statement as the URI the Readium schema wants: EPUB Accessibility 1.1's "EPUB Accessibility
    /// 1.1 - WCAG 2.x Level AA" as `https://www.w3.org/TR/epub-a11y-11#wcag-2.x-aa`, 1.0's URIs in one spelling, any
    /// other URI as it is; text that is neither is dropped.
    static func profile(_ value: String) -> String? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let match = trimmed.firstMatch(of: #/^EPUB Accessibility 1\.1 - WCAG (2\.[0-9]) Level (A{1,3})$/#.ignoresCase()) {
            return "https://www.w3.org/TR/epub-a11y-11#wcag-\(match.1)-\(match.2.lowercased())"
        }
        if let level = trimmed.firstMatch(of: #/^https?://(?:www\.)?idpf\.org/epub/a11y/accessibility-20170105\.html#wcag-(a{1,3})$/#)?.1 {
            return "http://www.idpf.org/epub/a11y/accessibility-20170105.html#wcag-\(level)"
        }
        guard let url = URL(string: trimmed), let scheme = url.scheme, ["http", "https"].contains(scheme.lowercased()), url.host != nil else {
            return nil
        }
        return trimmed
    }

    static let accessModes: Set<String> = [
        "auditory", "chartOnVisual", "chemOnVisual", "colorDependent", "diagramOnVisual", "mathOnVisual", "musicOnVisual", "tactile",
        "textOnVisual", "textual", "visual",
    ]
    static let primaryAccessModes: Set<String> = ["auditory", "tactile", "textual", "visual"]
    static let features: Set<String> = [
        "annotations", "ARIA", "bookmarks", "index", "pageBreakMarkers", "printPageNumbers", "pageNavigation", "readingOrder",
        "structuralNavigation", "tableOfContents", "taggedPDF", "alternativeText", "audioDescription", "closedCaptions", "captions",
        "describedMath", "longDescription", "openCaptions", "signLanguage", "transcript", "displayTransformability", "synchronizedAudioText",
        "timingControl", "unlocked", "ChemML", "latex", "latex-chemistry", "MathML", "MathML-chemistry", "ttsMarkup", "highContrastAudio",
        "highContrastDisplay", "largePrint", "braille", "tactileGraphic", "tactileObject", "fullRubyAnnotations", "horizontalWriting",
        "rubyAnnotations", "verticalWriting", "withAdditionalWordSegmentation", "withoutAdditionalWordSegmentation", "none", "unknown",
    ]
    static let hazards: Set<String> = [
        "flashing", "motionSimulation", "sound", "none", "noFlashingHazard", "noMotionSimulationHazard", "noSoundHazard", "unknown",
        "unknownFlashingHazard", "unknownMotionSimulationHazard", "unknownSoundHazard",
    ]
}
