import MapbookData
import MapbookPackage
import MapbookRender
import MapbookSupport
import MapbookTiles

/// Builds a vector tile set from feature sources: the package backdrop (`backdrop:` in a
/// project) and `mapbook tiles build`. Each source becomes a tile layer, tiled by `Tiler`, written
/// as a `.vtpk` with a MapLibre style drawn from the layers' renderers, or as PMTiles, MBTiles or
/// a folder of tiles.
public enum BackdropBuilder {
    public struct Layer {
        /// The layer's name in the tiles and the style.
        public var name: String
        public var reader: FeatureReader
        /// Fields written to the tiles; empty: every field but blobs.
        public var fields: [String]
        public var minZoom: Int?
        public var maxZoom: Int?
        /// How the style draws it; nil: a default symbol for its geometry.
        public var renderer: Renderer?
        /// The field that labels its features (one of `fields`); the glyphs its texts need are
        /// written into a `.vtpk`.
        public var label: String?

        public init(
            name: String, reader: FeatureReader, fields: [String] = [], minZoom: Int? = nil, maxZoom: Int? = nil, renderer: Renderer? = nil, label: String? = nil
        ) {
            self.name = name
            self.reader = reader
            self.fields = fields
            self.minZoom = minZoom
            self.maxZoom = maxZoom
            self.renderer = renderer
            self.label = label
        }
    }

    /// The layers `mapbook tiles build` names as `PATH` or `NAME=PATH` (a layer is named by
    /// its file name without the extension unless named), each opened by its importer;
    /// `ProjectError` (`duplicateName`) when two inputs make one name.
    public static func layers(inputs: [String], fields: [String]) throws -> [Layer] {
        var layers: [Layer] = []
        for input in inputs {
            var path = input, name: String
            if let eq = input.firstIndex(of: "="), !input[..<eq].contains("/") {
                name = String(input[..<eq])
                path = String(input[input.index(after: eq)...])
            } else {
                name = FileSystem.lastComponent(path).split(separator: ".").first.map(String.init) ?? path
            }
            guard !layers.contains(where: { $0.name == name }) else {
                throw ProjectError(kind: .duplicateName, file: path, key: "", line: nil, message: "two inputs make a layer named '\(name)'; name them with NAME=PATH")
            }
            layers.append(Layer(name: name, reader: try Packager.openSource(path: path, name: name), fields: fields))
        }
        return layers
    }

    public enum Format: Sendable {
        case vectorTilePackage
        case export(TileExportFormat)

        /// The format a file name asks for: `.vtpk`, `.pmtiles`, `.mbtiles`, else a folder.
        public init(path: String) {
            let lower = path.lowercased()
            if lower.hasSuffix(".pmtiles") {
                self = .export(.pmtiles)
            } else if lower.hasSuffix(".mbtiles") {
                self = .export(.mbtiles)
            } else if lower.hasSuffix(".vtpk") {
                self = .vectorTilePackage
            } else {
                self = .export(.directory)
            }
        }
    }

    public struct Result: Sendable {
        public var report: TilerReport
        /// Features added per layer, and those skipped (no geometry, or not transformable).
        public var layers: [(name: String, added: Int, skipped: Int)]
        /// The extent of the data in WGS84, nil when there was none.
        public var extent: BoundingBox?

        /// What `mapbook tiles build` prints once it wrote `output`.
        public func lines(output: String) -> [String] {
            var out: [String] = layers.map { layer -> String in
                let skipped = layer.skipped > 0 ? ", \(MapbookSupport.Format.count(layer.skipped)) without usable geometry skipped" : ""
                return "\(layer.name): \(MapbookSupport.Format.count(layer.added)) features\(skipped)"
            }
            if report.maxZoomGuessed { out.append("maxzoom \(report.maxZoom), guessed from the spacing of the features") }
            return out + report.lines + ["wrote \(output): \(MapbookSupport.Format.count(report.tiles)) tiles, \(MapbookSupport.Format.bytes(Int64(report.bytes)))"]
        }
    }

    /// Tiles `layers` and writes the tile set to `path` atomically (nothing is left there on
    /// failure). `progress` hears each layer as it is read (and every 100,000 features of it),
    /// the guess of the maximum zoom, the start of tiling, each zoom as it is done and the
    /// writing, so no long step of a large build runs unannounced.
    public static func build(
        layers: [Layer], options: TilerOptions, name: String, timestamp: Int64, to path: String, format: Format, replacingExisting: Bool = false,
        credits: String = "", progress: ((String) -> Void)? = nil
    ) throws -> Result {
        var options = options
        // The tiler's temporary files go beside the output, on the disk the output needs anyway.
        if options.workDirectory == nil { options.workDirectory = FileSystem.parent(of: path) }
        let tiler = Tiler(options: options)
        var infos: [VectorLayerInfo] = []
        var styleLayers: [VectorTileStyle.Layer] = []
        var counts: [(String, Int, Int)] = []
        // The characters the labels use, for the glyph ranges a .vtpk ships.
        var characters = Set<UInt32>()
        for layer in layers {
            progress?("reading \(layer.name)")
            // Reading a million features into the tiler takes a while: it is counted aloud.
            let labelIndex = layer.label.flatMap { label in layer.reader.schema.fields.firstIndex { $0.name == label } }
            let reader = CountingFeatureReader(
                layer.reader, every: 100_000, progress: progress.map { say in { say("reading \(layer.name): \($0) features") } },
                each: labelIndex.map { index in
                    { feature in
                        guard index < feature.values.count, let text = feature.values[index].displayText else { return }
                        for scalar in text.unicodeScalars { characters.insert(scalar.value) }
                    }
                })
            let summary = try tiler.addLayer(TilerLayer(name: layer.name, minZoom: layer.minZoom, maxZoom: layer.maxZoom, fields: layer.fields), from: reader)
            counts.append((layer.name, summary.added, summary.skipped))
            let schema = layer.reader.schema
            let fields = (layer.fields.isEmpty ? schema.fields.filter { $0.type != .blob }.map(\.name) : layer.fields).map { name -> VectorLayerInfo.Field in
                let type = schema.fields.first { $0.name == name }?.type
                return VectorLayerInfo.Field(name: name, type: type == .integer || type == .real ? "Number" : (type == .boolean ? "Boolean" : "String"))
            }
            let geometry: VectorLayerInfo.Geometry? =
                switch schema.geometryType?.family {
                case .point: .point
                case .line: .line
                case .polygon: .polygon
                case nil: tiler.dominantGeometry(layer: summary.layer)
                }
            infos.append(VectorLayerInfo(id: layer.name, fields: fields, minZoom: layer.minZoom, maxZoom: layer.maxZoom, geometry: geometry))
            if let geometry {
                styleLayers.append(VectorTileStyle.Layer(
                    sourceLayer: layer.name, geometry: geometry, renderer: layer.renderer, minZoom: layer.minZoom, maxZoom: layer.maxZoom, label: layer.label))
            }
        }
        if options.maxZoom == nil {
            // The guess reads every point in order of its place on the map.
            progress?("guessing the maximum zoom from the spacing of \(tiler.featureCount) features")
        }
        let zooms = try tiler.zoomRange()
        let bounds = tiler.bounds
        let extent = bounds ?? BoundingBox(minX: -180, minY: -85, maxX: 180, maxY: 85)
        let writer: any WritableTileArchive
        switch format {
        case .vectorTilePackage:
            let style = VectorTileStyle(name: name, layers: styleLayers, minZoom: zooms.lowerBound, maxZoom: zooms.upperBound, attribution: credits)
            var description = VectorTilePackageDescription(
                name: name, layers: infos, fullExtent: WebMercator.project(extent), minLOD: zooms.lowerBound, maxLOD: zooms.upperBound,
                style: style.json, timestamp: timestamp)
            description.title = name
            description.credits = credits
            if !characters.isEmpty {
                progress?("drawing the labels' glyphs")
                description.glyphs = Self.glyphs(for: characters)
            }
            writer = try VectorTilePackageWriter(path: path, description: description)
        case .export(let exportFormat):
            let metadata = TileArchiveMetadata(
                name: name, description: "", attribution: credits, format: .mvt, tileCompression: .gzip, bounds: extent,
                minZoom: zooms.lowerBound, maxZoom: zooms.upperBound, layers: infos)
            writer = try TileExporter.writer(exportFormat, path: path, metadata: metadata, replacingExisting: replacingExisting)
        }
        do {
            // Before the first zoom, dense points are thinned for every zoom.
            progress?("tiling zooms \(zooms.lowerBound)-\(zooms.upperBound)")
            let report = try tiler.build { coordinate, data in
                try writer.addTile(data, at: coordinate)
            } zoomDone: { zoom in
                progress?("zoom \(zoom.zoom): \(zoom.tiles) tiles")
            }
            (writer as? VectorTilePackageWriter)?.description.tiling = report
            progress?("writing \(report.tiles) tiles")
            try writer.finish()
            return Result(report: report, layers: counts, extent: bounds)
        } catch {
            writer.abort()
            throw error
        }
    }

    /// The glyph ranges that hold `characters`, drawn from the installed Noto Sans.
    static func glyphs(for characters: Set<UInt32>) -> [GlyphRange] {
        let rasterizer = GlyphRasterizer(family: VectorTileStyle.labelFontFamily)
        let starts = Set(characters.map { $0 & ~0xFF }).sorted()
        return starts.map { rasterizer.range(start: $0, fontStack: VectorTileStyle.labelFont) }
    }
}
