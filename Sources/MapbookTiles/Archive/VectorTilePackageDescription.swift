import MapbookSupport

/// Everything a vector tile package (`.vtpk`) says about its tiles, besides the tiles.
///
/// `VectorTilePackageWriter` turns it into the package's item files, `root.json`, style and
/// metadata (DESIGN.md 3.4). The tiling scheme is fixed: Web Mercator, 512-pixel tiles, level n
/// = zoom n.
public struct VectorTilePackageDescription: Sendable {
    /// The package's name: root.json's `name`, the item's name.
    public var name: String
    /// The item's title; the name when empty.
    public var title: String = ""
    public var summary: String = ""
    /// May hold HTML, as Esri item descriptions do.
    public var description: String = ""
    public var tags: [String] = []
    /// Credits: root.json's `copyrightText`, the style source's attribution, the item's access information.
    public var credits: String = ""
    /// Use limitations: the item's licence information.
    public var license: String = ""
    /// The item GUID; derived from the name when nil, so a rebuilt package keeps its identity.
    public var guid: String?
    /// The layers in the tiles, with their fields, geometry and zoom ranges.
    public var layers: [VectorLayerInfo]
    /// The extent of the data in Web Mercator metres (EPSG:3857).
    public var fullExtent: BoundingBox
    /// The first level holding tiles.
    public var minLOD: Int
    /// The last level holding tiles; clients overzoom its tiles beyond it.
    public var maxLOD: Int
    /// Levels of detail defined past `maxLOD`, down to which clients may zoom in (overzooming).
    public var overzoomLevels: Int = 4
    /// A MapLibre GL style, version 8, whose layers draw from the source `esri`.
    public var style: JSONObject
    /// PNG (or JPEG) bytes for `esriinfo/thumbnail/`.
    public var thumbnail: [UInt8]?
    /// Unix seconds: every entry's modification time and the item's created and modified dates.
    /// Fixed by the caller so the same inputs give byte-identical packages.
    public var timestamp: Int64
    /// What the tiler did per zoom, written to `metadata.json` under `tiling` so `inspect`
    /// can show features kept and dropped; set it before `finish()`.
    public var tiling: TilerReport?
    /// The glyph ranges the style's labels need, written to `resources/fonts/<stack>/<range>.pbf`.
    public var glyphs: [GlyphRange] = []

    public init(
        name: String, layers: [VectorLayerInfo], fullExtent: BoundingBox, minLOD: Int, maxLOD: Int,
        style: JSONObject, timestamp: Int64
    ) {
        self.name = name
        self.layers = layers
        self.fullExtent = fullExtent
        self.minLOD = minLOD
        self.maxLOD = maxLOD
        self.style = style
        self.timestamp = timestamp
    }

    /// The most levels a tiling scheme here defines (Esri's Web Mercator scheme stops at 23).
    public static let maximumLevel = 23

    /// The last level `tileInfo.lods` defines.
    var lastLevel: Int { min(max(maxLOD + overzoomLevels, maxLOD), Self.maximumLevel) }

    /// The metadata of the same tile set, for the other archive formats.
    public var metadata: TileArchiveMetadata {
        TileArchiveMetadata(
            name: name, description: summary, attribution: credits, format: .mvt, tileCompression: .gzip,
            bounds: WebMercator.unproject(fullExtent), minZoom: minLOD, maxZoom: maxLOD, layers: layers)
    }

    /// Problems that stop a package from being written: levels outside the scheme, an empty
    /// extent, a style that does not draw from the package.
    func problems() -> [String] {
        var problems: [String] = []
        if name.isEmpty { problems.append("the package has no name") }
        if !(0...Self.maximumLevel).contains(minLOD) || !(0...Self.maximumLevel).contains(maxLOD) || minLOD > maxLOD {
            problems.append("levels \(minLOD) to \(maxLOD) are not a range within 0 to \(Self.maximumLevel)")
        }
        if !fullExtent.hasArea || ![fullExtent.minX, fullExtent.minY, fullExtent.maxX, fullExtent.maxY].allSatisfy({ $0.isFinite && abs($0) <= WebMercator.halfWorld * 1.0001 }) {
            problems.append("the full extent \(fullExtent) is empty or not in Web Mercator metres")
        }
        if overzoomLevels < 0 { problems.append("overzoomLevels is negative") }
        problems += Self.styleProblems(style, fontStacks: Set(glyphs.map(\.fontStack)))
        return problems
    }

    /// Why a style cannot be shipped in a package: not version 8, layers drawing from sources
    /// other than `esri`, glyphs or sprites the package does not ship, labels without glyphs.
    static func styleProblems(_ style: JSONObject, fontStacks: Set<String> = []) -> [String] {
        var problems: [String] = []
        if let version = style["version"], version != 8 {
            problems.append("the style's version is \(JSONWriter.string(version, style: .compact)), not 8")
        }
        // Fonts ship when glyph ranges are given; sprites never (resources/sprites).
        if style["sprite"] != nil { problems.append("the style names 'sprite', but the package ships no sprites; remove it") }
        if style["glyphs"] != nil, fontStacks.isEmpty { problems.append("the style names 'glyphs', but the package ships no fonts; remove it") }
        let sources = Set((style.object("sources") ?? JSONObject()).keys).union(["esri"])
        for layer in (style.array("layers") ?? []).compactMap(\.objectValue) {
            let id = layer.string("id") ?? "?"
            if let source = layer.string("source"), !sources.contains(source) {
                problems.append("style layer '\(id)' draws from source '\(source)', which the style does not define")
            }
            if layer.string("type") == "symbol", layer.object("layout")?["text-field"] != nil {
                let fonts = (layer.object("layout")?.array("text-font") ?? []).compactMap(\.stringValue)
                if style["glyphs"] == nil || fontStacks.isEmpty {
                    problems.append("style layer '\(id)' has labels (text-field), which need glyphs the package does not ship")
                } else if let missing = fonts.first(where: { !fontStacks.contains($0) }) {
                    problems.append("style layer '\(id)' draws with the font '\(missing)', which the package does not ship")
                }
            }
        }
        return problems
    }
}
