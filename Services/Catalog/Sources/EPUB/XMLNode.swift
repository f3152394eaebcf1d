import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// A small XML element tree built with the SAX `XMLParser` (no XPath: FoundationXML's XPath crashes on unknown
/// prefixes). Names are local names; attributes are keyed by local name too. External entities are never
/// loaded and documents that declare entities are refused before parsing (billion laughs).
final class XMLNode {
    let name: String
    let namespace: String?
    let attributes: [String: String]
    var children: [XMLNode] = []
    var text = ""

    init(name: String, namespace: String?, attributes: [String: String]) {
        self.name = name
        self.namespace = namespace
        self.attributes = attributes
    }

    /// Direct children named `name`.
    func children(_ name: String) -> [XMLNode] { children.filter { $0.name == name } }
    func child(_ name: String) -> XMLNode? { children.first { $0.name == name } }

    /// Every descendant named `name`, in document order.
    func descendants(_ name: String) -> [XMLNode] {
        var result: [XMLNode] = []
        for child in children {
            if child.name == name { result.append(child) }
            result += child.descendants(name)
        }
        return result
    }

    /// All text below this node, white space collapsed.
    var allText: String {
        var parts = [text]
        for child in children { parts.append(child.allText) }
        return parts.joined(separator: " ").collapsingWhitespace
    }

    subscript(attribute: String) -> String? { attributes[attribute] }

    /// Parses `data`; throws `EPUBError.hostileXML` for entity declarations and `XMLTree.Malformed` for bad XML.
    static func parse(_ data: Data, path: String) throws -> XMLNode {
        if data.range(of: Data("<!ENTITY".utf8)) != nil { throw EPUBError.hostileXML(path) }
        let delegate = Builder()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = delegate
        guard parser.parse(), let root = delegate.root, delegate.stack.isEmpty else {
            throw Malformed(path: path, reason: parser.parserError.map { "\($0.localizedDescription)" } ?? "not well-formed")
        }
        return root
    }

    struct Malformed: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "\(path) is not well-formed XML (\(reason))" }
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var root: XMLNode?
        var stack: [XMLNode] = []

        func parser(
            _ parser: XMLParser,
            didStartElement elementName: String,
            namespaceURI: String?,
            qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            var attrs: [String: String] = [:]
            for (key, value) in attributes {
                let local = key.split(separator: ":").last.map(String.init) ?? key
                if attrs[local] == nil || !key.contains(":") { attrs[local] = value }
                attrs[key] = value
            }
            let local = elementName.split(separator: ":").last.map(String.init) ?? elementName
            let node = XMLNode(name: local, namespace: namespaceURI, attributes: attrs)
            if let parent = stack.last { parent.children.append(node) } else { root = node }
            stack.append(node)
            if stack.count > 256 { parser.abortParsing() }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            stack.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard let node = stack.last, node.text.utf8.count < 1 << 20 else { return }
            node.text += string
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            stack.last?.text += String(decoding: CDATABlock, as: UTF8.self)
        }
    }
}

extension String {
    /// Runs of white space become one space; leading and trailing space goes.
    var collapsingWhitespace: String {
        split(whereSeparator: { $0.isWhitespace || $0.isNewline }).joined(separator: " ")
    }
}
