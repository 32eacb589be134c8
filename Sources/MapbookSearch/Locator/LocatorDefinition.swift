import MapbookPackage

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
    /// Address points: reverse geocoding answers with them before other features.
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
            throw LocatorError(path: path, message: "not a single-field locator (type is '\(o.string("type") ?? "missing")')")
        }
        guard let layer = o.string("layer"), let field = o.string("field") else {
            throw LocatorError(path: path, message: "a single-field locator needs 'layer' and 'field'")
        }
        return LocatorDefinition(
            name: o.string("name") ?? layer, layer: layer, data: o.string("data") ?? "../../data.gpkg", field: field,
            displayField: o.string("displayField"), rankField: o.string("rankField"), outputFields: o.strings("outputFields") ?? [],
            wkid: o.object("spatialReference")?.int("latestWkid") ?? o.object("spatialReference")?.int("wkid"),
            isAddress: o.string("role") == "address", count: o.int("count"))
    }
}

/// The composite locator's `<Name>.loc.json`.
public struct CompositeDefinition: Sendable, Equatable {
    public struct Participant: Sendable, Equatable {
        public var name: String
        /// The participant's folder, relative to the composite's folder.
        public var path: String
        public var order: Int

        public init(name: String, path: String, order: Int) {
            self.name = name
            self.path = path
            self.order = order
        }
    }

    public var name: String
    public var participants: [Participant]
    /// The search-quality file, relative to the composite's folder.
    public var quality: String?

    public init(name: String, participants: [Participant], quality: String? = nil) {
        self.name = name
        self.participants = participants
        self.quality = quality
    }

    public var jsonValue: JSONValue {
        var o = JSONObject()
        o["type"] = .string("composite")
        o["name"] = .string(name)
        o["participants"] = .array(participants.map { p in
            .object(["name": .string(p.name), "path": .string(p.path), "order": .int(p.order)])
        })
        o.set("quality", quality)
        return .object(o)
    }

    public static func parse(_ bytes: [UInt8], path: String) throws -> CompositeDefinition {
        let o = try JSONParser.parseObject(bytes, path: path)
        guard o.string("type") == "composite" else {
            throw LocatorError(path: path, message: "not a composite locator (type is '\(o.string("type") ?? "missing")')")
        }
        var participants: [Participant] = []
        for (i, value) in (o.array("participants") ?? []).enumerated() {
            guard let p = value.objectValue, let folder = p.string("path") else {
                throw LocatorError(path: path, message: "participant \(i + 1) has no 'path'")
            }
            participants.append(Participant(name: p.string("name") ?? folder, path: folder, order: p.int("order") ?? i + 1))
        }
        guard !participants.isEmpty else { throw LocatorError(path: path, message: "the composite locator lists no participants") }
        participants.sort { $0.order < $1.order }
        return CompositeDefinition(name: o.string("name") ?? "Locator", participants: participants, quality: o.string("quality"))
    }
}
