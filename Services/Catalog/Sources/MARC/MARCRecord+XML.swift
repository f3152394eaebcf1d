import Foundation

extension MARCRecord {
    /// MARCXML's opening and closing (the Library of Congress's MARC 21 slim schema): records go between them.
    static let xmlStart = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<collection xmlns=\"http://www.loc.gov/MARC21/slim\">\n"
    static let xmlEnd = "</collection>\n"

    /// The record as a MARCXML `<record>`.
    var xml: String {
        var text = "<record><leader>\(leader())</leader>"
        for (tag, value) in controlFields { text += "<controlfield tag=\"\(tag)\">\(Self.escaped(value))</controlfield>" }
        for field in dataFields {
            text += "<datafield tag=\"\(field.tag)\" ind1=\"\(field.indicators.0)\" ind2=\"\(field.indicators.1)\">"
            for subfield in field.subfields { text += "<subfield code=\"\(subfield.code)\">\(Self.escaped(subfield.value))</subfield>" }
            text += "</datafield>"
        }
        return text + "</record>\n"
    }

    /// Text as XML 1.0 character data: markup escaped, characters XML cannot carry (most C0 controls) dropped.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value >= 0x20 && scalar.value != 0xFFFE && scalar.value != 0xFFFF { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
