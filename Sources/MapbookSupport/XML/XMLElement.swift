import CLibXML2
// The libxml2 functions called here are defined in CMapbookLazy, which opens libxml2 on first use.
import CMapbookLazy

/// An XML parse failure, naming the document and libxml2's message with its line.
public struct XMLError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, for callers and tests to switch on.
    public enum Kind: Sendable, Hashable {
        /// The file holds no bytes at all.
        case empty
        /// libxml2 refused the text: `message` gives its reason and line.
        case notWellFormed
        /// The document parsed but has no root element.
        case noRootElement
    }

    public var kind: Kind
    public var path: String
    public var message: String
    public var description: String { "Cannot read XML '\(path)': \(message)" }
}

/// A node of a small XML tree: an element or a run of text.
public enum XMLNode: Sendable, Hashable {
    case element(XMLElement)
    case text(String)
}

/// An XML element with its attributes in document order and its children.
///
/// Item descriptions (`iteminfo.xml`, `item.pkinfo`) are small, so they are read whole into
/// this tree through libxml2 and written back through libxml2, which does the escaping.
public struct XMLElement: Sendable, Hashable {
    public var name: String
    public var attributes: [(name: String, value: String)]
    public var children: [XMLNode]

    public init(_ name: String, attributes: [(String, String)] = [], children: [XMLNode] = []) {
        self.name = name
        self.attributes = attributes.map { (name: $0.0, value: $0.1) }
        self.children = children
    }

    /// An element holding only `text`.
    public init(_ name: String, text: String) {
        self.init(name, children: text.isEmpty ? [] : [.text(text)])
    }

    public static func == (lhs: XMLElement, rhs: XMLElement) -> Bool {
        lhs.name == rhs.name && lhs.children == rhs.children
            && lhs.attributes.map(\.name) == rhs.attributes.map(\.name)
            && lhs.attributes.map(\.value) == rhs.attributes.map(\.value)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(children)
    }

    /// The concatenated text of this element and its descendants.
    public var text: String {
        children.map {
            switch $0 {
            case .text(let t): return t
            case .element(let e): return e.text
            }
        }.joined()
    }

    public var elements: [XMLElement] {
        children.compactMap {
            if case .element(let e) = $0 { return e }
            return nil
        }
    }

    /// The first child element named `name`.
    public func child(_ name: String) -> XMLElement? {
        elements.first { $0.name == name }
    }

    public func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }
}

/// Reads and writes XML documents through libxml2.
public enum XMLDocumentIO {
    private static let initialized: Bool = {
        xmlInitParser()
        return true
    }()

    /// Parses `bytes` into the root element and the processing instructions before it.
    ///
    /// Network access, DTD loading and entity expansion are off: package files are untrusted.
    /// The corresponding C function is `xmlReadMemory`.
    public static func parse(_ bytes: [UInt8], path: String) throws(XMLError) -> XMLElement {
        _ = initialized
        guard !bytes.isEmpty else { throw XMLError(kind: .empty, path: path, message: "the file is empty") }
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue | XML_PARSE_NOCDATA.rawValue)
        let document: xmlDocPtr? = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                xmlReadMemory($0, Int32(buffer.count), nil, nil, options)
            }
        }
        guard let document else {
            var message = "not well-formed XML"
            if let error = xmlGetLastError(), let text = error.pointee.message {
                message = "line \(error.pointee.line): " + String(cString: text).trimmingWhitespace()
            }
            throw XMLError(kind: .notWellFormed, path: path, message: message)
        }
        defer { xmlFreeDoc(document) }
        guard let root = xmlDocGetRootElement(document) else {
            throw XMLError(kind: .noRootElement, path: path, message: "the document has no root element")
        }
        return convert(root)
    }

    private static func convert(_ node: xmlNodePtr) -> XMLElement {
        var element = XMLElement(String(cString: node.pointee.name))
        var attribute = node.pointee.properties
        while let a = attribute {
            let name = String(cString: a.pointee.name)
            var value = ""
            if let content = xmlNodeGetContent(UnsafeMutableRawPointer(a).assumingMemoryBound(to: xmlNode.self)) {
                value = String(cString: content)
                mapbook_xml_free(content)
            }
            element.attributes.append((name: name, value: value))
            attribute = a.pointee.next
        }
        var child = node.pointee.children
        while let c = child {
            switch c.pointee.type {
            case XML_ELEMENT_NODE:
                element.children.append(.element(convert(c)))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = c.pointee.content {
                    let text = String(cString: content)
                    if case .text(let previous)? = element.children.last {
                        element.children[element.children.count - 1] = .text(previous + text)
                    } else {
                        element.children.append(.text(text))
                    }
                }
            default:
                break
            }
            child = c.pointee.next
        }
        // Whitespace between child elements is layout, not content.
        if element.children.contains(where: { if case .element = $0 { return true } else { return false } }) {
            element.children.removeAll {
                if case .text(let t) = $0 { return t.allSatisfy(\.isWhitespace) }
                return false
            }
        }
        return element
    }

    /// Serialises `root` as a UTF-8 document, one element per line as Esri writes them.
    ///
    /// `processingInstructions` (target, content) go before the root element.
    /// The corresponding C functions are `xmlNewDoc` and `xmlDocDumpFormatMemoryEnc`.
    public static func serialize(_ root: XMLElement, processingInstructions: [(String, String)] = []) -> [UInt8] {
        _ = initialized
        guard let document = xmlNewDoc("1.0") else { return [] }
        defer { xmlFreeDoc(document) }
        let rootNode = build(root, document: document)
        xmlDocSetRootElement(document, rootNode)
        for (target, content) in processingInstructions {
            if let pi = xmlNewDocPI(document, target, content) {
                xmlAddPrevSibling(rootNode, pi)
            }
        }
        var buffer: UnsafeMutablePointer<xmlChar>? = nil
        var size: Int32 = 0
        xmlDocDumpFormatMemoryEnc(document, &buffer, &size, "utf-8", 1)
        guard let buffer else { return [] }
        defer { mapbook_xml_free(buffer) }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }

    private static func build(_ element: XMLElement, document: xmlDocPtr) -> xmlNodePtr? {
        guard let node = xmlNewDocNode(document, nil, element.name, nil) else { return nil }
        for attribute in element.attributes {
            xmlSetProp(node, attribute.name, attribute.value)
        }
        for child in element.children {
            switch child {
            case .element(let e):
                if let c = build(e, document: document) { xmlAddChild(node, c) }
            case .text(let t):
                // xmlNewDocText stores the text raw; the serialiser escapes &, < and >.
                if let c = xmlNewDocText(document, t) { xmlAddChild(node, c) }
            }
        }
        return node
    }
}

