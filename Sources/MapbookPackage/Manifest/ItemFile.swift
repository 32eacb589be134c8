import MapbookSupport

/// An Esri item file of a package (`esriinfo/iteminfo.xml`, `esriinfo/item.pkinfo`): read from
/// XML whose root must be `rootName`, written as `element`, and equal when they write the same.
public protocol ItemFile: Equatable {
    static var rootName: String { get }
    init(element root: XMLElement)
    /// The document as an element tree, in Esri's order.
    var element: XMLElement { get }
}

extension ItemFile {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.element == rhs.element
    }

    /// Parses the XML; `PackageFormatError` for text that is not XML (`xml`) or another
    /// root element (`wrongFormat`).
    public static func parse(_ bytes: [UInt8], path: String) throws(PackageFormatError) -> Self {
        let root: XMLElement
        do {
            root = try XMLDocumentIO.parse(bytes, path: path)
        } catch {
            throw PackageFormatError(kind: .xml(error.kind), path: path, message: error.message)
        }
        guard root.name == rootName else {
            throw PackageFormatError(kind: .wrongFormat, path: path, message: "the root element is <\(root.name)>, expected <\(rootName)>")
        }
        return Self(element: root)
    }
}
