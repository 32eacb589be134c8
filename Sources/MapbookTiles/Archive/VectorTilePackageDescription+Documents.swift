import MapbookPackage
import MapbookSupport

/// The files of a vector tile package besides its bundles, shaped after a real Esri package
/// (fixtures/vtpk-basemapde/sample_cache) and the ArcGIS REST API's VectorTileServer resource.
extension VectorTilePackageDescription {
    /// Web Mercator's tile origin, the top-left corner of level 0.
    static let origin = 20_037_508.342787
    /// Level 0's metres per pixel for 512-pixel tiles, as Esri's scheme states it.
    static let resolution0 = 78_271.516964
    /// Pixels per metre at 96 dpi: a scale is a resolution times this. Esri counts 39.37
    /// inches to the metre (the US survey inch), which gives level 0 its 295,828,763.7957775.
    static let pixelsPerMetre = 96 * 39.37

    static func resolution(level: Int) -> Double { resolution0 / Double(1 << level) }
    static func scale(level: Int) -> Double { resolution(level: level) * pixelsPerMetre }

    var effectiveTitle: String { title.isEmpty ? name : title }

    var effectiveGUID: String {
        if let guid, !guid.isEmpty { return guid }
        // Name-based, version-5 layout over SHA-256, as the packager derives its own.
        var bytes = Array(SHA256Digest.hex(of: Array(("mapbook-vtpk:" + name).utf8)).utf8.prefix(32))
        bytes[12] = UInt8(ascii: "5")
        bytes[16] = Array("89ab".utf8)[Int(bytes[16] % 4)]
        let h = Array(String(decoding: bytes, as: UTF8.self).uppercased())
        return [h[0..<8], h[8..<12], h[12..<16], h[16..<20], h[20..<32]].map { String($0) }.joined(separator: "-")
    }

    static func extentJSON(_ box: BoundingBox) -> JSONValue {
        [
            "xmin": .double(box.minX), "ymin": .double(box.minY), "xmax": .double(box.maxX), "ymax": .double(box.maxY),
            "spatialReference": ["wkid": 102100, "latestWkid": 3857],
        ]
    }

    /// `p12/root.json`: the VectorTileServer description clients read first.
    var rootJSON: JSONValue {
        let lods: [JSONValue] = (0...lastLevel).map { level in
            ["level": .int(level), "resolution": .double(Self.resolution(level: level)), "scale": .double(Self.scale(level: level))]
        }
        var o = JSONObject()
        o["currentVersion"] = 11.3
        o["name"] = .string(name)
        o["copyrightText"] = .string(credits)
        o["capabilities"] = "TilesOnly"
        o["type"] = "indexedVector"
        o["tileMap"] = "tilemap"
        o["defaultStyles"] = "resources/styles"
        o["tiles"] = ["tile/{z}/{y}/{x}.pbf"]
        o["exportTilesAllowed"] = false
        o["initialExtent"] = Self.extentJSON(fullExtent)
        o["fullExtent"] = Self.extentJSON(fullExtent)
        o["minScale"] = .double(Self.scale(level: minLOD))
        o["maxScale"] = .double(Self.scale(level: lastLevel))
        o["tileInfo"] = [
            "rows": 512, "cols": 512, "dpi": 96, "format": "pbf",
            "origin": ["x": .double(-Self.origin), "y": .double(Self.origin)],
            "spatialReference": ["wkid": 102100, "latestWkid": 3857],
            "lods": .array(lods),
        ]
        // The style's source URL ("../../") makes root.json the source's TileJSON for
        // MapLibre-based readers: its maxzoom must be the last level with tiles, so they
        // overzoom it rather than ask for tiles that do not exist.
        o["maxzoom"] = .int(maxLOD)
        o["minLOD"] = .int(minLOD)
        o["maxLOD"] = .int(maxLOD)
        o["resourceInfo"] = [
            "styleVersion": 8,
            "tileCompression": "gzip",
            "cacheInfo": ["storageInfo": ["packetSize": 128, "storageFormat": "compactV2"]],
        ]
        return .object(o)
    }

    /// `p12/resources/styles/root.json`: the style with its `esri` source pointing at the package.
    var styleJSON: JSONValue {
        var style = self.style
        style["version"] = 8
        var sources = style.object("sources") ?? JSONObject()
        var esri = sources.object("esri") ?? JSONObject()
        esri["type"] = "vector"
        // Relative to resources/styles/: the package root, where root.json describes the tiles.
        esri["url"] = "../../"
        if esri["attribution"] == nil, !credits.isEmpty { esri["attribution"] = .string(credits) }
        sources["esri"] = .object(esri)
        style["sources"] = .object(sources)
        if style["layers"] == nil { style["layers"] = [] }
        return .object(style)
    }

    /// `p12/metadata.json`: the tile set as TileJSON/MBTiles metadata, with `vector_layers`
    /// in its `json` string as in the Esri sample package.
    var metadataJSON: JSONValue {
        let meta = metadata
        var o = JSONObject()
        o["name"] = .string(name)
        o["description"] = .string(summary)
        o["attribution"] = .string(credits)
        o["format"] = "pbf"
        o["scheme"] = "xyz"
        o["minzoom"] = .int(minLOD)
        o["maxzoom"] = .int(maxLOD)
        if let bounds = meta.bounds {
            o["bounds"] = .array([bounds.minX, bounds.minY, bounds.maxX, bounds.maxY].map { .double(($0 * 1e7).rounded() / 1e7) })
        }
        o["json"] = .string(JSONWriter.string(.object(meta.layersDocument), style: .compact))
        if let tiling { o["tiling"] = tiling.jsonValue }
        return .object(o)
    }

    /// `p12/resources/info/root.json`: the resource files clients may fetch: the metadata and
    /// the glyph ranges (no sprites).
    var resourceInfoJSON: JSONValue {
        ["resourceInfo": .array([.string("../../metadata.json")] + glyphs.map { .string("../fonts/\($0.fontStack)/\($0.name).pbf") })]
    }

    /// `esriinfo/iteminfo.xml`.
    func itemInfo(thumbnailName: String?) -> ItemInfo {
        var info = ItemInfo()
        info.name = name
        info.guid = effectiveGUID
        info.created = timestamp
        info.modified = timestamp
        info.snippet = summary
        info.summary = summary
        info.description = description
        info.title = effectiveTitle
        info.tags = tags
        info.type = TilePackage.Kind.vectorTilePackage.rawValue
        info.typeKeywords = ["Data", "Vector Tile Package", "vtpk"]
        info.thumbnail = thumbnailName.map { "thumbnail/" + $0 } ?? ""
        info.extent = WebMercator.unproject(fullExtent)
        info.spatialReference = "WGS_1984_Web_Mercator_Auxiliary_Sphere"
        info.minScale = Self.scale(level: minLOD)
        info.maxScale = Self.scale(level: lastLevel)
        info.accessInformation = credits
        info.licenseInfo = license
        return info
    }

    /// `esriinfo/item.pkinfo`.
    var packageInfo: PackageInfo {
        var info = PackageInfo()
        info.id = effectiveGUID
        info.name = name
        info.version = "11.3"
        info.created = ISODate.format(seconds: timestamp)
        info.type = TilePackage.Kind.vectorTilePackage.rawValue
        info.documentTypes = ["Lyr"]
        return info
    }
}
