import Foundation

/// A MARC 21 bibliographic record: the leader's status, control fields and data fields, written as ISO 2709
/// (`MARCRecord+ISO2709.swift`) or MARCXML (`MARCRecord+XML.swift`).
struct MARCRecord: Sendable, Equatable {
    enum Status: Character, Sendable {
        case new = "n"
        case corrected = "c"
        case deleted = "d"
    }

    struct Subfield: Sendable, Equatable {
        let code: Character
        let value: String
    }

    struct DataField: Sendable, Equatable {
        let tag: String
        let indicators: (Character, Character)
        let subfields: [Subfield]

        static func == (a: DataField, b: DataField) -> Bool {
            a.tag == b.tag && a.indicators == b.indicators && a.subfields == b.subfields
        }
    }

    var status: Status
    /// Tag and value, in tag order (001, 003, 005, 008).
    var controlFields: [(tag: String, value: String)] = []
    var dataFields: [DataField] = []

    static func == (a: MARCRecord, b: MARCRecord) -> Bool {
        a.status == b.status && a.controlFields.map(\.tag) == b.controlFields.map(\.tag)
            && a.controlFields.map(\.value) == b.controlFields.map(\.value) && a.dataFields == b.dataFields
    }

    /// A data field with its subfields, those with an empty value left out; nil when none is left.
    static func field(_ tag: String, _ first: Character, _ second: Character, _ subfields: [(Character, String?)]) -> DataField? {
        let kept = subfields.compactMap { code, value in
            value.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : Subfield(code: code, value: $0) }
        }
        return kept.isEmpty ? nil : DataField(tag: tag, indicators: (first, second), subfields: kept)
    }

    /// The leader, with the record's length and the data's base address (zeros in MARCXML, where they mean nothing).
    func leader(length: Int = 0, baseAddress: Int = 0) -> String {
        String(format: "%05d", length) + "\(status.rawValue)am a22" + String(format: "%05d", baseAddress) + " i 4500"
    }
}
