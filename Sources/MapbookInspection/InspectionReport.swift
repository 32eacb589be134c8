import MapbookPackage
import MapbookSupport
/// What `inspect` found in a package or a standalone Esri file, ready to print or to emit as JSON.
public struct InspectionReport: Sendable {
    public var path: String
    /// "Mobile Map Package", "Vector Tile Package", "Compact Tile Package", "Mobile Geodatabase",
    /// "GeoPackage", "Compact Cache bundle", "Compact Cache".
    public var kind: String
    public var fileSize: Int64
    public var item: ItemSummary?
    public var maps: [MapSummary] = []
    public var tilePackages: [TilePackageSummary] = []
    public var dataFiles: [DataFileSummary] = []
    public var locators: [LocatorDescription] = []
    public var entries: [EntrySummary] = []
    /// Things that could not be read; inspection goes on past them.
    public var notes: [String] = []

    public init(path: String, kind: String, fileSize: Int64) {
        self.path = path
        self.kind = kind
        self.fileSize = fileSize
    }

    /// The sum of the entries' uncompressed sizes.
    public var totalEntryBytes: Int64 {
        entries.reduce(0) { total, entry in
            let (sum, overflow) = total.addingReportingOverflow(entry.size)
            return overflow ? .max : sum
        }
    }

    public struct ItemSummary: Sendable {
        public var title: String?
        public var name: String?
        public var snippet: String?
        public var summary: String?
        public var description: String?
        public var guid: String?
        public var version: String?
        public var type: String?
        /// Epoch milliseconds.
        public var created: Int64?
        public var modified: Int64?
        public var tags: [String] = []
        /// WGS84.
        public var extent: BoundingBox?
        public var spatialReference: String?
        public var credits: String?
        public var useLimitations: String?
        public var expiration: Expiration?
        public var generator: String?
        public var formatVersion: Int?
        public var hasThumbnail = false
    }

    public struct LayerSummary: Sendable {
        public var title: String
        public var layerType: String?
        public var path: String?
        /// The resolved data: "data.gpkg › mains", with the row count when known.
        public var data: String?
        public var rowCount: Int64?
        public var visible: Bool?
        public var opacity: Double?
        public var rendererType: String?
        public var rendererFields: [String] = []
        public var rendererClasses: Int?
        public var definitionExpression: String?
        public var minScale: Double?
        public var maxScale: Double?
        /// 0 for top-level layers, 1 for children of a group, ...
        public var depth: Int
        public var isBasemap: Bool
    }

    public struct BookmarkSummary: Sendable {
        public var name: String
        public var extent: BoundingBox?
        public var wkid: Int?
        public var scale: Double?
    }

    public struct MapSummary: Sendable {
        public var entry: String
        public var name: String
        public var title: String?
        public var summary: String?
        public var wkid: Int?
        public var initialExtent: BoundingBox?
        public var layers: [LayerSummary] = []
        public var bookmarks: [BookmarkSummary] = []
    }

    public struct TilePackageSummary: Sendable {
        /// The entry inside the package, or nil for a standalone file.
        public var entry: String?
        public var kind: String
        public var name: String?
        public var format: String?
        public var tileSize: Int?
        public var levelsOfDetail: Int
        public var levels: [TilePackage.Level]
        public var fullExtent: BoundingBox?
        public var wkid: Int?
        public var bytes: Int64
        public var tiles: Int { levels.reduce(0) { $0 + $1.tiles } }
    }

    public struct TableSummary: Sendable {
        public var name: String
        public var kind: String
        public var geometryType: String?
        public var rowCount: Int64?
        public var itemId: Int?
        public var layerName: String?
        public var srsID: Int?
        public var problem: String?
    }

    public struct DataFileSummary: Sendable {
        public var entry: String
        /// "GeoPackage" or "Mobile Geodatabase".
        public var kind: String
        public var bytes: Int64
        public var tables: [TableSummary] = []
    }

    public struct EntrySummary: Sendable {
        public var name: String
        public var size: Int64
        public var compressedSize: Int64
        public var method: String
    }
}

extension InspectionReport {
    /// The report as JSON, for `inspect --json`.
    public var jsonValue: JSONValue {
        var o = JSONObject()
        o["path"] = .string(path)
        o["kind"] = .string(kind)
        o["fileSize"] = .integer(fileSize)
        if let item { o["item"] = item.jsonValue }
        o["maps"] = .array(maps.map(\.jsonValue))
        o["tilePackages"] = .array(tilePackages.map(\.jsonValue))
        o["dataFiles"] = .array(dataFiles.map(\.jsonValue))
        o["locators"] = .array(locators.map(\.jsonValue))
        o["entries"] = .array(entries.map { ["name": .string($0.name), "size": .integer($0.size), "compressedSize": .integer($0.compressedSize), "method": .string($0.method)] })
        o["totalEntryBytes"] = .integer(totalEntryBytes)
        o["notes"] = .array(notes.map(JSONValue.string))
        return .object(o)
    }
}

extension BoundingBox {
    var jsonValue: JSONValue { [.double(minX), .double(minY), .double(maxX), .double(maxY)] }
}

extension InspectionReport.ItemSummary {
    var jsonValue: JSONValue {
        var o = JSONObject()
        o.set("title", title)
        o.set("name", name)
        o.set("snippet", snippet)
        o.set("summary", summary)
        o.set("description", description)
        o.set("guid", guid)
        o.set("version", version)
        o.set("type", type)
        o.set("created", created)
        o.set("modified", modified)
        o.set("createdISO", created.map { ISODate.format(milliseconds: $0) })
        o.set("modifiedISO", modified.map { ISODate.format(milliseconds: $0) })
        o["tags"] = .array(tags.map(JSONValue.string))
        o.set("extent", extent?.jsonValue)
        o.set("spatialReference", spatialReference)
        o.set("credits", credits)
        o.set("useLimitations", useLimitations)
        o.set("expiration", expiration)
        o.set("generator", generator)
        o.set("formatVersion", formatVersion)
        o["hasThumbnail"] = .bool(hasThumbnail)
        return .object(o)
    }
}

extension InspectionReport.MapSummary {
    var jsonValue: JSONValue {
        var o = JSONObject()
        o["entry"] = .string(entry)
        o["name"] = .string(name)
        o.set("title", title)
        o.set("summary", summary)
        o.set("wkid", wkid)
        o.set("initialExtent", initialExtent?.jsonValue)
        o["layers"] = .array(layers.map(\.jsonValue))
        o["bookmarks"] = .array(bookmarks.map { b in
            var bo = JSONObject()
            bo["name"] = .string(b.name)
            bo.set("extent", b.extent?.jsonValue)
            bo.set("wkid", b.wkid)
            bo.set("scale", b.scale)
            return .object(bo)
        })
        return .object(o)
    }
}

extension InspectionReport.LayerSummary {
    var jsonValue: JSONValue {
        var o = JSONObject()
        o["title"] = .string(title)
        o.set("layerType", layerType)
        o.set("path", path)
        o.set("data", data)
        o.set("rowCount", rowCount)
        o.set("visible", visible)
        o.set("opacity", opacity)
        o.set("renderer", rendererType)
        o["rendererFields"] = .array(rendererFields.map(JSONValue.string))
        o.set("rendererClasses", rendererClasses)
        o.set("definitionExpression", definitionExpression)
        o.set("minScale", minScale)
        o.set("maxScale", maxScale)
        o["depth"] = .int(depth)
        o["basemap"] = .bool(isBasemap)
        return .object(o)
    }
}

extension InspectionReport.TilePackageSummary {
    var jsonValue: JSONValue {
        var o = JSONObject()
        o.set("entry", entry)
        o["kind"] = .string(kind)
        o.set("name", name)
        o.set("format", format)
        o.set("tileSize", tileSize)
        o["levelsOfDetail"] = .int(levelsOfDetail)
        o["levels"] = .array(levels.map {
            var level: JSONObject = ["level": .int($0.level), "bundles": .int($0.bundles), "tiles": .int($0.tiles), "bytes": .integer($0.bytes), "largestTile": .int($0.largestTile)]
            level.set("featuresKept", $0.featuresKept)
            level.set("featuresDropped", $0.featuresDropped)
            return .object(level)
        })
        o["tiles"] = .int(tiles)
        o["bytes"] = .integer(bytes)
        o.set("fullExtent", fullExtent?.jsonValue)
        o.set("wkid", wkid)
        return .object(o)
    }
}

extension InspectionReport.DataFileSummary {
    var jsonValue: JSONValue {
        var o = JSONObject()
        o["entry"] = .string(entry)
        o["kind"] = .string(kind)
        o["bytes"] = .integer(bytes)
        o["tables"] = .array(tables.map { t in
            var to = JSONObject()
            to["name"] = .string(t.name)
            to["kind"] = .string(t.kind)
            to.set("geometryType", t.geometryType)
            to.set("rowCount", t.rowCount)
            to.set("itemId", t.itemId)
            to.set("layerName", t.layerName)
            to.set("srsID", t.srsID)
            to.set("problem", t.problem)
            return .object(to)
        })
        return .object(o)
    }
}

extension LocatorDescription {
    var jsonValue: JSONValue {
        var o = JSONObject()
        o["path"] = .string(path)
        o["format"] = .string(format)
        o.set("name", name)
        o.set("description", description)
        o.set("category", category)
        o.set("style", style)
        o["participants"] = .array(participants.map(JSONValue.string))
        return .object(o)
    }
}
