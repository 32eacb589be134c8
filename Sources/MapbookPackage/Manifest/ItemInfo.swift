import MapbookSupport

/// `esriinfo/iteminfo.xml`: Esri's `<ESRI_ItemInformation>` description of a package.
///
/// Written with Esri's element order; elements this model does not know are kept and written
/// after the known ones, attributes of the root (`Culture`) are kept.
public struct ItemInfo: ItemFile, Sendable {
    public var name: String = ""
    public var guid: String = ""
    public var version: String = "1.0"
    /// Unix seconds, as Esri writes them here (the `.info` uses milliseconds).
    public var created: Int64?
    public var modified: Int64?
    public var catalogPath: String = ""
    public var snippet: String = ""
    /// May hold HTML, stored escaped as Esri does.
    public var description: String = ""
    public var summary: String = ""
    public var title: String = ""
    public var tags: [String] = []
    public var type: String = PackageManifest.mobileMapPackageType
    public var typeKeywords: [String] = []
    /// Path of the thumbnail relative to `esriinfo/`.
    public var thumbnail: String = ""
    public var documentation: String = ""
    public var url: String = ""
    /// WGS84.
    public var extent: BoundingBox?
    public var spatialReference: String = ""
    public var minScale: Double?
    public var maxScale: Double?
    public var dataLastModifiedTime: String = ""
    /// Credits.
    public var accessInformation: String = ""
    /// Use limitations.
    public var licenseInfo: String = ""
    /// Root attributes, e.g. `Culture`.
    public var attributes: [(name: String, value: String)] = [("Culture", "en-US")]
    /// Elements this model does not know, in document order.
    public var otherElements: [XMLElement] = []

    public static let rootName = "ESRI_ItemInformation"

    public init() {}

    public init(element root: XMLElement) {
        attributes = root.attributes
        for child in root.elements {
            let text = child.text
            switch child.name {
            case "name": name = text
            case "guid": guid = text
            case "version": version = text
            case "created": created = Int64(text.trimmingWhitespace())
            case "modified": modified = Int64(text.trimmingWhitespace())
            case "catalogpath": catalogPath = text
            case "snippet": snippet = text
            case "description": description = text
            case "summary": summary = text
            case "title": title = text
            case "tags": tags = PackageManifest.splitTags(text)
            case "type": type = text
            case "typekeywords": typeKeywords = child.elements.filter { $0.name == "typekeyword" }.map(\.text)
            case "thumbnail": thumbnail = text
            case "documentation": documentation = text
            case "url": url = text
            case "extent":
                let v = ["xmin", "ymin", "xmax", "ymax"].map { child.child($0).flatMap { Double($0.text.trimmingWhitespace()) } }
                if let a = v[0], let b = v[1], let c = v[2], let d = v[3] {
                    extent = BoundingBox(minX: a, minY: b, maxX: c, maxY: d)
                }
            case "spatialreference": spatialReference = text
            case "minScale": minScale = Double(text.trimmingWhitespace())
            case "maxScale": maxScale = Double(text.trimmingWhitespace())
            case "datalastModifiedTime": dataLastModifiedTime = text
            case "accessinformation": accessInformation = text
            case "licenseinfo": licenseInfo = text
            default: otherElements.append(child)
            }
        }
    }

    /// The document as an element tree, in Esri's order.
    public var element: XMLElement {
        func number(_ d: Double?) -> String { d.map(JSONWriter.formatNumber) ?? "" }
        var children: [XMLElement] = [
            XMLElement("name", text: name),
            XMLElement("guid", text: guid),
            XMLElement("version", text: version),
            XMLElement("created", text: created.map(String.init) ?? ""),
            XMLElement("modified", text: modified.map(String.init) ?? ""),
            XMLElement("catalogpath", text: catalogPath),
            XMLElement("snippet", text: snippet),
            XMLElement("description", text: description),
            XMLElement("summary", text: summary),
            XMLElement("title", text: title),
            XMLElement("tags", text: tags.joined(separator: ",")),
            XMLElement("type", text: type),
            XMLElement("typekeywords", children: typeKeywords.map { .element(XMLElement("typekeyword", text: $0)) }),
            XMLElement("thumbnail", text: thumbnail),
            XMLElement("documentation", text: documentation),
            XMLElement("url", text: url),
        ]
        if let extent {
            children.append(
                XMLElement("extent", children: [
                    .element(XMLElement("xmin", text: number(extent.minX))),
                    .element(XMLElement("ymin", text: number(extent.minY))),
                    .element(XMLElement("xmax", text: number(extent.maxX))),
                    .element(XMLElement("ymax", text: number(extent.maxY))),
                ]))
        } else {
            children.append(XMLElement("extent"))
        }
        children += [
            XMLElement("spatialreference", text: spatialReference),
            XMLElement("minScale", text: number(minScale)),
            XMLElement("maxScale", text: number(maxScale)),
            XMLElement("datalastModifiedTime", text: dataLastModifiedTime),
            XMLElement("accessinformation", text: accessInformation),
            XMLElement("licenseinfo", text: licenseInfo),
        ]
        children += otherElements
        return XMLElement(Self.rootName, attributes: attributes.map { ($0.name, $0.value) }, children: children.map { .element($0) })
    }

    public func serialized() -> [UInt8] {
        XMLDocumentIO.serialize(element)
    }
}
