import MapbookPackage
import MapbookSupport

/// A single-field locator's `locator.json` (DESIGN.md section 3.5).
public struct LocatorDefinition: Sendable, Equatable {
    public static let singleFieldType = "singleField"

    public var name: String
    /// The layer's table in the package's GeoPackage, and that GeoPackage's entry name
    /// relative to the locator folder ("../../data.gpkg").
    public var layer: String
    public var data: String
    public var field: String
    public var displayField: String?
    public var rankField: String?
    public var outputFields: [String]
    /// The layer's coordinate system (`{"wkid": n}`), as in the web map.
    public var wkid: Int?
    /// Address points: reverse geocoding puts them first among features at the same distance.
    public var isAddress: Bool
    /// Features indexed, for `inspect`.
    public var count: Int?

    public init(name: String, layer: String, data: String = "../../data.gpkg", field: String, displayField: String? = nil, rankField: String? = nil, outputFields: [String] = [], wkid: Int? = nil, isAddress: Bool = false, count: Int? = nil) {
        self.name = name
        self.layer = layer
        self.data = data
        self.field = field
        self.displayField = displayField
        self.rankField = rankField
        self.outputFields = outputFields
        self.wkid = wkid
        self.isAddress = isAddress
        self.count = count
    }

    public var jsonValue: JSONValue {
        var o = JSONObject()
        o["type"] = .string(Self.singleFieldType)
        o["name"] = .string(name)
        o["layer"] = .string(layer)
        o["data"] = .string(data)
        o["field"] = .string(field)
        o.set("displayField", displayField)
        o.set("rankField", rankField)
        o["outputFields"] = .array(outputFields.map(JSONValue.string))
        if let wkid { o["spatialReference"] = .object(["wkid": .int(wkid)]) }
        o["role"] = .string(isAddress ? "address" : "feature")
        if let count { o["count"] = .int(count) }
        return .object(o)
    }

    public static func parse(_ bytes: [UInt8], path: String) throws -> LocatorDefinition {
        let o = try JSONParser.parseObject(bytes, path: path)
        guard o.string("type") == singleFieldType else {
            throw LocatorError(kind: .wrongFormat, path: path, message: "not a single-field locator (type is '\(o.string("type") ?? "missing")')")
        }
        guard let layer = o.string("layer"), let field = o.string("field") else {
            throw LocatorError(kind: .missingKey, path: path, message: "a single-field locator needs 'layer' and 'field'")
        }
        return LocatorDefinition(
            name: o.string("name") ?? layer, layer: layer, data: o.string("data") ?? "../../data.gpkg", field: field,
            displayField: o.string("displayField"), rankField: o.string("rankField"), outputFields: o.strings("outputFields") ?? [],
            wkid: o.object("spatialReference")?.int("latestWkid") ?? o.object("spatialReference")?.int("wkid"),
            isAddress: o.string("role") == "address", count: o.int("count"))
    }
}
