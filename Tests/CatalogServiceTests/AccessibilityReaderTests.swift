import Foundation
import Testing

@testable import CatalogService

/// Accessibility metadata read from package documents, EPUB 3 and EPUB 2 forms, into Readium's accessibility object.
@Suite struct AccessibilityReaderTests {
    func read(_ metadata: String) throws -> Accessibility? {
        let xml =
            #"<package xmlns="http://www.idpf.org/2007/opf"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">"# + metadata
            + "</metadata></package>"
        let root = try XMLNode.parse(Data(xml.utf8), path: "package.opf")
        return AccessibilityReader.read(try #require(root.child("metadata")))
    }

    @Test func epub3MetadataWithACertifierAndItsRefinements() throws {
        let a11y = try #require(
            try read(
                """
                <meta property="schema:accessMode">textual</meta><meta property="schema:accessMode">visual</meta>
                <meta property="schema:accessMode">nonsense</meta>
                <meta property="schema:accessModeSufficient">textual</meta>
                <meta property="schema:accessModeSufficient">textual, visual</meta>
                <meta property="schema:accessModeSufficient">textual</meta>
                <meta property="schema:accessibilityFeature">tableOfContents</meta><meta property="schema:accessibilityFeature">alternativeText</meta>
                <meta property="schema:accessibilityHazard">noFlashingHazard</meta><meta property="schema:accessibilityHazard">noSoundHazard</meta>
                <meta property="schema:accessibilityHazard">noMotionSimulationHazard</meta>
                <meta property="schema:accessibilitySummary">Meets WCAG 2.1 AA.</meta>
                <meta property="dcterms:conformsTo" id="conf">EPUB Accessibility 1.1 - WCAG 2.1 Level AA</meta>
                <meta property="a11y:certifiedBy" id="certifier">Accessible Books Inc.</meta>
                <meta property="a11y:certifierCredential" refines="#certifier">Global Certified</meta>
                <link rel="a11y:certifierReport" refines="#certifier" href="https://example.org/report.html"/>
                """
            )
        )
        #expect(a11y.accessMode == ["textual", "visual"], "a mode outside the vocabulary is dropped")
        #expect(a11y.accessModeSufficient == [["textual"], ["textual", "visual"]], "sets once each, comma lists split")
        #expect(a11y.feature == ["tableOfContents", "alternativeText"])
        #expect(a11y.declaresNoHazards && a11y.isScreenReaderFriendly)
        #expect(a11y.conformsTo == ["https://www.w3.org/TR/epub-a11y-11#wcag-2.1-aa"])
        #expect(
            a11y.certification
                == .init(certifiedBy: "Accessible Books Inc.", credential: "Global Certified", report: "https://example.org/report.html")
        )
        let summary = try #require(a11y.readableSummary)
        #expect(summary.contains("screen reader") && summary.contains("No hazards") && summary.contains("WCAG 2.1 Level AA"))
        #expect(summary.contains("Accessible Books Inc.") && summary.hasSuffix("Meets WCAG 2.1 AA."))
    }

    @Test func epub2MetadataAndEpubAccessibility10Links() throws {
        let a11y = try #require(
            try read(
                """
                <meta name="schema:accessMode" content="textual"/><meta name="schema:accessModeSufficient" content="textual"/>
                <meta name="schema:accessibilityHazard" content="flashing"/>
                <meta name="dcterms:conformsTo" content="https://idpf.org/epub/a11y/accessibility-20170105.html#wcag-aa"/>
                <link rel="dcterms:conformsTo" href="not a uri"/>
                """
            )
        )
        #expect(a11y.accessMode == ["textual"] && a11y.isScreenReaderFriendly)
        #expect(a11y.hazard == ["flashing"] && !a11y.declaresNoHazards)
        #expect(a11y.conformsTo == ["http://www.idpf.org/epub/a11y/accessibility-20170105.html#wcag-aa"])
        #expect(a11y.readableSummary?.contains("Hazards: flashing.") == true)
    }

    @Test func aBookThatDeclaresNothingHasNoAccessibilityObject() throws {
        #expect(try read(#"<dc:title>Plain</dc:title><meta property="dcterms:modified">2024-01-01T00:00:00Z</meta>"#) == nil)
        #expect(try read(#"<meta property="schema:accessMode">smell</meta>"#) == nil)
    }
}
