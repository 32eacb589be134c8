import MapbookSupport

/// `esriinfo/item.pkinfo`: Esri's `<pkinfo>` package identity (ID, name, version, type).
public struct PackageInfo: ItemFile, Sendable {
    /// The package GUID.
    public var id: String = ""
    public var name: String = ""
    /// The version of the software that wrote the package (Esri writes its Pro version).
    public var version: String = "1.0"
    public var size: String = "-1"
    public var created: String = ""
    public var type: String = PackageManifest.mobileMapPackageType
    public var servable: String = "false"
    public var packageLocation: String = ""
    public var pkinfoLocation: String = ""
    public var documentTypes: [String] = []
    public var attributes: [(name: String, value: String)] = [("Culture", "en-US")]
    public var otherElements: [XMLElement] = []

    public static let rootName = "pkinfo"
    /// Esri's stylesheet processing instruction, kept so portals render the file as they expect.
    public static let stylesheet = ("xml-stylesheet", "type=\"text/xsl\" href=\"http://www.arcgisonline.com/home/pkinfostylesheet.xsl\"")

    public init() {}

    public init(element root: XMLElement) {
        attributes = root.attributes
        for child in root.elements {
            switch child.name {
            case "ID": id = child.text
            case "name": name = child.text
            case "version": version = child.text
            case "size": size = child.text
            case "created": created = child.text
            case "type": type = child.text
            case "servable": servable = child.text
            case "packagelocation": packageLocation = child.text
            case "pkinfolocation": pkinfoLocation = child.text
            case "documenttypes": documentTypes = child.elements.filter { $0.name == "documenttype" }.map(\.text)
            default: otherElements.append(child)
            }
        }
    }

    public var element: XMLElement {
        var children: [XMLElement] = [
            XMLElement("ID", text: id),
            XMLElement("name", text: name),
            XMLElement("version", text: version),
            XMLElement("size", text: size),
            XMLElement("created", text: created),
            XMLElement("type", text: type),
            XMLElement("servable", text: servable),
            XMLElement("packagelocation", text: packageLocation),
            XMLElement("pkinfolocation", text: pkinfoLocation),
        ]
        if !documentTypes.isEmpty {
            children.append(XMLElement("documenttypes", children: documentTypes.map { .element(XMLElement("documenttype", text: $0)) }))
        }
        children += otherElements
        return XMLElement(Self.rootName, attributes: attributes.map { ($0.name, $0.value) }, children: children.map { .element($0) })
    }

    public func serialized() -> [UInt8] {
        XMLDocumentIO.serialize(element, processingInstructions: [Self.stylesheet])
    }
}
