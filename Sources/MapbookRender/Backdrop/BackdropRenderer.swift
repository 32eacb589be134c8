import CCairo
import MapbookData
import MapbookPackage
import MapbookSupport
import MapbookTiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Draws a vector tile backdrop with its own MapLibre style (version 8) onto a Web Mercator
/// canvas: `background`, `fill`, `line`, `circle`, `fill-extrusion` (seen from above, as a
/// fill) and `symbol` layers, in the style's order, each with its filter, zoom range,
/// visibility and paint and layout properties (`StyleExpression` evaluates them, legacy
/// functions and filters included).
///
/// The style's zoom is MapLibre's (a 512-pixel world at zoom 0), from the canvas's resolution
/// and DPI, fractional between levels. Tiles come from the level at or below that zoom within
/// the archive's range, so past the deepest level the last level is over-zoomed; each tile is
/// drawn clipped to its own square, as MapLibre does, so features in its buffer are not drawn
/// twice. Decoded tiles are kept between frames (`cacheLimit`).
///
/// What cannot be drawn is drawn around: a property this renderer does not support, a tile
/// that does not decode, a layer type it does not know; each is counted once in `problems`.
public final class BackdropRenderer {
    public let archive: any ReadableTileArchive
    /// The style's layers in drawing order.
    let layers: [StyleLayer]
    /// The style's name, for messages.
    public let styleName: String
    /// What the style asks that is not drawn (expressions not evaluated, icons the sprite
    /// lacks, glyphs no font has), each once, in the order first met.
    public private(set) var problems: [String] = []
    /// Damage met in the data: tiles that do not decode, a sprite that cannot be read.
    public private(set) var damage: [String] = []
    /// Property keys (`paint.line-blur`) and layer types not drawn, counted per style layer.
    public private(set) var unsupported: [String: Int] = [:]
    /// How many decoded tiles are kept between frames.
    public var cacheLimit = 256
    var cache: [TileCoordinate: DecodedTile] = [:]
    var cacheOrder: [TileCoordinate] = []
    /// How each feature of a tile's style layer was drawn at a zoom, so panning (the same
    /// tiles at the same zoom) draws without evaluating the style again.
    var looks: [LookKey: [PaintBatch.FeatureLook]] = [:]
    var looksOrder: [LookKey] = []

    struct LookKey: Hashable {
        var tile: TileCoordinate
        var layer: Int
        var zoom: Double
        var pixelRatio: Double
    }

    /// Keeps how a tile's style layer was drawn, the oldest forgotten past a limit.
    func keep(_ recorded: [PaintBatch.FeatureLook], _ key: LookKey) {
        looks[key] = recorded
        looksOrder.append(key)
        if looksOrder.count > cacheLimit * 16 { looks[looksOrder.removeFirst()] = nil }
    }
    /// Labels of the current frame by style layer, drawn after every other layer.
    var pendingLabels: [[LabelPlacer.Label]] = []
    /// The style's sprite, for icons; nil draws labels without their icons.
    public var sprite: Sprite?
    /// Why the style's sprite could not be used, when it could not.
    public var spriteProblem: String? {
        didSet { if let spriteProblem { noteDamage(spriteProblem) } }
    }

    /// Metres per CSS pixel at MapLibre zoom 0: a 512-pixel Web Mercator world.
    public static let zoomZeroResolution = 78_271.516_963_999_95
    /// Half the Web Mercator world's width, in metres.
    public static let halfWorld = 20_037_508.342_789_244

    /// A renderer for `archive`'s tiles drawn with `style` (a MapLibre style document).
    public init(archive: any ReadableTileArchive, style: JSONObject) {
        self.archive = archive
        styleName = style.string("name") ?? archive.path
        var layers: [StyleLayer] = []
        var unsupported: [String: Int] = [:]
        for case .object(let json) in style.array("layers") ?? [] {
            let layer = StyleLayer(json: json)
            for key in layer.unsupportedKeys { unsupported[key, default: 0] += 1 }
            layers.append(layer)
        }
        self.layers = layers
        self.unsupported = unsupported
    }

    /// The MapLibre zoom of a view `metresPerPixel` wide per device pixel at `dpi`.
    public static func styleZoom(metresPerPixel: Double, dpi: Double = 96) -> Double {
        let zoom = log2(zoomZeroResolution / (metresPerPixel * dpi / 96))
        // A view of exactly a level (the whole world on 512 pixels) comes out a rounding off
        // it, and a hair below a layer's minzoom hides the layer: whole levels are snapped.
        let level = zoom.rounded()
        return abs(zoom - level) < 1e-9 ? level : zoom
    }

    func note(_ problem: String) {
        if !problems.contains(problem) { problems.append(problem) }
    }

    func noteDamage(_ problem: String) {
        if !damage.contains(problem) { damage.append(problem) }
    }

    /// Draws the backdrop on `canvas`, whose extent is in Web Mercator metres, at `dpi`, its
    /// labels placed among themselves alone.
    public func draw(on canvas: MapCanvas, dpi: Double = 96) {
        drawWithoutLabels(on: canvas, dpi: dpi)
        var placer = LabelPlacer(width: canvas.width, height: canvas.height)
        drawLabels(on: canvas, placingIn: &placer)
    }

    /// Draws every style layer but the symbol layers on `canvas`, whose extent is in Web
    /// Mercator metres, at `dpi`, and collects the symbol layers' labels for
    /// `drawLabels(on:placingIn:)`, so that labels drawn over the backdrop (a map's own) can
    /// be placed before them.
    public func drawWithoutLabels(on canvas: MapCanvas, dpi: Double = 96) {
        pendingLabels = []
        let zoom = Self.styleZoom(metresPerPixel: canvas.resolution, dpi: dpi)
        let pixelRatio = dpi / 96
        let metadata = archive.metadata
        let level = min(max(Int(zoom.rounded(.down)), metadata.minZoom), metadata.maxZoom)
        // Each tile of the level, else its nearest ancestor the archive has (a cache that
        // stops short of its declared levels is over-zoomed from what it has), drawn clipped
        // to the squares it stands in for.
        var order: [TileCoordinate] = []
        var standsFor: [TileCoordinate: [TileCoordinate]] = [:]
        var tilesByCoordinate: [TileCoordinate: DecodedTile] = [:]
        for wanted in Self.tiles(covering: canvas.visibleExtent, level: level) {
            var c: TileCoordinate? = wanted
            while let candidate = c, candidate.z >= metadata.minZoom {
                if let tile = tilesByCoordinate[candidate] ?? decodedTile(candidate) {
                    if tilesByCoordinate[candidate] == nil { order.append(candidate) }
                    tilesByCoordinate[candidate] = tile
                    standsFor[candidate, default: []].append(wanted)
                    break
                }
                c = Self.parent(of: candidate)
            }
        }
        let decoded = order.map { DrawnTile(coordinate: $0, tile: tilesByCoordinate[$0]!, squares: standsFor[$0]!) }
        let context = canvas.context
        for (index, layer) in layers.enumerated() where layer.isVisible(at: zoom) {
            var evaluator = StyleExpression(zoom: zoom)
            switch layer.type {
            case "background":
                let color = layer.color("background-color", &evaluator) ?? .black
                let opacity = layer.number("background-opacity", &evaluator) ?? 1
                cairo_save(context)
                cairo_set_source_rgba(context, color.red, color.green, color.blue, color.alpha * opacity)
                cairo_paint(context)
                cairo_restore(context)
            case "fill", "fill-extrusion", "line", "circle":
                for drawn in decoded {
                    guard let features = drawn.tile.layers[layer.sourceLayer] else { continue }
                    let transform = TileTransform(tile: drawn.coordinate, extent: features.extent, canvas: canvas)
                    cairo_save(context)
                    // Each tile is clipped to its square (or the squares it stands in for): a
                    // feature in the buffer of two tiles is drawn once.
                    for square in drawn.squares {
                        let t = TileTransform(tile: square, extent: 1, canvas: canvas)
                        cairo_rectangle(context, t.originX, t.originY, t.size, t.size)
                    }
                    cairo_clip(context)
                    var batch = PaintBatch()
                    let key = LookKey(tile: drawn.coordinate, layer: index, zoom: zoom, pixelRatio: pixelRatio)
                    let known = looks[key]
                    var recorded: [PaintBatch.FeatureLook] = []
                    for (i, feature) in features.features.enumerated() {
                        if let known, i < known.count {
                            switch known[i] {
                            case .hidden: continue
                            case .batched(let look):
                                redraw(feature, look, transform, context, &batch)
                                continue
                            case .alone: break
                            }
                        }
                        evaluator.feature = feature.styleFeature
                        guard evaluator.filter(layer.filter) else {
                            recorded.append(.hidden)
                            continue
                        }
                        switch layer.type {
                        case "line": recorded.append(drawLine(feature, layer, &evaluator, transform, context, pixelRatio, &batch))
                        case "circle":
                            batch.paint(context)
                            drawCircle(feature, layer, &evaluator, transform, context, pixelRatio)
                            recorded.append(.alone)
                        default: recorded.append(drawFill(feature, layer, &evaluator, transform, context, pixelRatio, &batch))
                        }
                    }
                    batch.paint(context)
                    if known == nil { keep(recorded, key) }
                    cairo_restore(context)
                }
            case "symbol":
                collectLabels(layer, decoded, zoom: zoom, canvas: canvas, pixelRatio: pixelRatio)
            default:
                break
            }
            for problem in evaluator.unsupported.sorted() { note("expression '\(problem)' is not evaluated (style layer '\(layer.id)')") }
        }
    }

    /// The tile one level up whose square holds `c`'s; nil at level 0.
    static func parent(of c: TileCoordinate) -> TileCoordinate? {
        guard c.z > 0 else { return nil }
        // Columns past the antimeridian stay on their side of it: floor division.
        return TileCoordinate(z: c.z - 1, x: c.x >= 0 ? c.x / 2 : (c.x - 1) / 2, y: c.y / 2)
    }

    /// The tiles of `level` that cover `extent` (Web Mercator metres), wrapped across the
    /// antimeridian to the world's columns.
    static func tiles(covering extent: BoundingBox, level: Int) -> [TileCoordinate] {
        let n = 1 << level
        let span = 2 * halfWorld / Double(n)
        let x0 = Int(((extent.minX + halfWorld) / span).rounded(.down)), x1 = Int(((extent.maxX + halfWorld) / span).rounded(.down))
        let y0 = max(0, Int(((halfWorld - extent.maxY) / span).rounded(.down))), y1 = min(n - 1, Int(((halfWorld - extent.minY) / span).rounded(.down)))
        guard y0 <= y1, x1 - x0 < 4 * n else { return [] }
        var out: [TileCoordinate] = []
        for y in y0...y1 {
            for x in x0...x1 {
                out.append(TileCoordinate(z: level, x: x, y: y))
            }
        }
        return out
    }

    /// The tile at `c` decoded (the column wrapped into the world), from the cache when it
    /// was drawn before; nil when the archive has none there or it does not decode.
    func decodedTile(_ c: TileCoordinate) -> DecodedTile? {
        let n = 1 << c.z
        let wrapped = TileCoordinate(z: c.z, x: ((c.x % n) + n) % n, y: c.y)
        if let hit = cache[wrapped] { return hit }
        let tile: DecodedTile
        do {
            guard let bytes = try archive.tile(at: wrapped) else { return nil }
            let decoded = try VectorTileDecoder(checksGeometry: false).decode(bytes, source: "\(archive.path) tile \(wrapped)")
            var skipped = decoded.warnings
            tile = DecodedTile(decoded.tile, skipped: &skipped)
            // One line per tile, however many of its features break the specification: the
            // tile is decoded once and kept, so this is said once.
            if let summary = MVTError.summary(skipped.map { $0.located(source: "\(archive.path) tile \(wrapped)") }) {
                noteDamage("tile \(wrapped) breaks the MVT specification; what cannot be read is not drawn: \(summary)")
            }
        } catch {
            noteDamage("tile \(wrapped) is not drawn: \(error)")
            return nil
        }
        cache[wrapped] = tile
        cacheOrder.append(wrapped)
        if cacheOrder.count > cacheLimit {
            cache[cacheOrder.removeFirst()] = nil
        }
        return tile
    }
}

/// A tile drawn on a frame: its features, and the squares of the frame's level it covers
/// (its own, or its descendants' when it stands in for missing ones).
struct DrawnTile {
    let coordinate: TileCoordinate
    let tile: DecodedTile
    let squares: [TileCoordinate]
}

/// A tile's features, decoded once for every style layer that reads them.
struct DecodedTile {
    struct Feature {
        var geometry: TileGeometry
        var styleFeature: StyleExpression.Feature
    }

    struct Layer {
        var extent: Double
        var features: [Feature]
    }

    var layers: [String: Layer] = [:]

    /// The tile's features that can be drawn; each one whose geometry does not decode is
    /// added to `skipped` (an UNKNOWN feature without a geometry is only left out: it has
    /// nothing to draw).
    init(_ tile: VectorTile, skipped: inout [MVTError]) {
        // A feature's number is its place among the features as encoded; in a layer the
        // decoder already left features out of, only its id can say which it is.
        let shortened = Set(skipped.compactMap(\.layer))
        for layer in tile.layers {
            var features: [Feature] = []
            features.reserveCapacity(layer.features.count)
            for (index, feature) in layer.features.enumerated() {
                if feature.type == .unknown && feature.geometry.isEmpty { continue }
                let geometry: TileGeometry
                do {
                    geometry = try feature.decodeGeometry()
                } catch where error.kind == .degeneratePolygon {
                    // Draws nothing; skipped without a word, as MapLibre and GDAL skip it.
                    continue
                } catch {
                    skipped.append(error.located(layer: layer.name, feature: shortened.contains(layer.name) ? nil : index, featureID: feature.id))
                    continue
                }
                var properties: [String: JSONValue] = [:]
                for (key, value) in layer.attributes(of: feature) { properties[key] = value.styleValue }
                let type: String
                switch feature.type {
                case .point: type = "Point"
                case .lineString: type = "LineString"
                case .polygon: type = "Polygon"
                case .unknown: type = "Unknown"
                }
                features.append(Feature(geometry: geometry, styleFeature: .init(properties: properties, geometryType: type, id: feature.id.map { .integer(Int64(truncatingIfNeeded: $0)) } ?? .null)))
            }
            layers[layer.name] = Layer(extent: Double(layer.extent == 0 ? 4096 : layer.extent), features: features)
        }
    }
}

extension VectorTile.Value {
    var styleValue: JSONValue {
        switch self {
        case .string(let s): return .string(s)
        case .float(let f): return .number(Double(f))
        case .double(let d): return .number(d)
        case .int(let i), .sint(let i): return .integer(i)
        case .uint(let u): return u <= UInt64(Int64.max) ? .integer(Int64(u)) : .number(Double(u))
        case .bool(let b): return .bool(b)
        }
    }
}

/// Tile coordinates to canvas pixels for one tile.
struct TileTransform {
    let scale: Double
    let originX: Double
    let originY: Double
    /// The tile's side in pixels.
    let size: Double

    init(tile: TileCoordinate, extent: Double, canvas: MapCanvas) {
        let span = 2 * BackdropRenderer.halfWorld / Double(1 << tile.z)
        let left = -BackdropRenderer.halfWorld + Double(tile.x) * span
        let top = BackdropRenderer.halfWorld - Double(tile.y) * span
        let corner = canvas.pixelPosition(x: left, y: top)
        originX = corner.x
        originY = corner.y
        size = span * canvas.pixelsPerUnit
        scale = size / extent
    }

    func pixel(_ p: TilePoint) -> (Double, Double) {
        (originX + Double(p.x) * scale, originY + Double(p.y) * scale)
    }
}
