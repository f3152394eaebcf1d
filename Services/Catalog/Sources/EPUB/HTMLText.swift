import Foundation

/// Plain text out of HTML, without an HTML parser: tags dropped, common entities decoded, white space collapsed.
enum HTMLText {
    static func plain(from html: String) -> String {
        var text = html.replacingOccurrences(of: #"<(script|style)[^>]*>[\s\S]*?</\1>"#, with: " ", options: [.regularExpression, .caseInsensitive])
        text = text.replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression)
        for (entity, value) in [("&nbsp;", " "), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&apos;", "'"), ("&amp;", "&")] {
            text = text.replacingOccurrences(of: entity, with: value)
        }
        return text.collapsingWhitespace
    }

    /// Words in the text of an XHTML document (outside tags), counted in one pass over the bytes.
    static func wordCount(_ data: Data) -> Int {
        var count = 0
        var inTag = false
        var inWord = false
        for byte in data {
            switch byte {
            case UInt8(ascii: "<"):
                inTag = true
                if inWord {
                    count += 1
                    inWord = false
                }
            case UInt8(ascii: ">"): inTag = false
            case _ where inTag: continue
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                if inWord {
                    count += 1
                    inWord = false
                }
            default: inWord = true
            }
        }
        return count + (inWord ? 1 : 0)
    }
}
