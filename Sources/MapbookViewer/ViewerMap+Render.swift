import MapbookData
import MapbookPackage
import MapbookRender
import MapbookSupport
import MapbookTiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A rendered view and what could not be drawn in it.
public struct RenderedView {
    public let canvas: MapCanvas
    /// One line per kind of thing drawn around that the package is not to blame for: a style
    /// property or expression not supported, a renderer type not drawn.
    public let warnings: [String]
    /// One line per damaged part drawn around: a layer whose data cannot be read, a tile that
    /// does not decode, a sprite that cannot be read. A picture with findings is still drawn.
    public let findings: [String]
    /// The labels set as terminal text rather than drawn, when the view was rendered for
    /// terminal cells (`render(_:labelCells:)`).
    public let cellLabels: TerminalLabels?
}

extension ViewerMap {
    /// The base map's vector tile layer opened for drawing with its own style, once per map;
    /// nil when the map has none (or it cannot be read: `backdropProblem` says why).
    func backdrop() -> BackdropRenderer? {
        if let backdropState { return backdropState.renderer }
        var problem: String?
        var renderer: BackdropRenderer?
        if let layer = baseMapLayers.first(where: { $0.type == "VectorTileLayer" && $0.isVisible }) {
            do {
                renderer = try Self.openBackdrop(layer.definition, package: session.package, mapEntry: entry)
            } catch {
                problem = "the base map '\(layer.title)' is not drawn: \(error)"
            }
        }
        backdropState = (renderer, problem)
        return renderer
    }

    /// The first shown raster base map (a `.tpkx` tile package layer), opened once; drawn
    /// under the vector backdrop when both are shown.
    func rasterBaseMap() -> RasterBaseMapRenderer? {
        if let rasterBaseMapState { return rasterBaseMapState.renderer }
        var problem: String?
        var renderer: RasterBaseMapRenderer?
        if let layer = baseMapLayers.first(where: { $0.type == "ArcGISTiledMapServiceLayer" && $0.isVisible }) {
            do {
                guard let path = layer.definition.dataPath, let entry = session.package.entry(for: path, mapEntry: entry) else {
                    throw ViewerError(kind: .unreadableLayer, path: session.package.path, message: "no tile package at \(layer.definition.path ?? "(no path)")")
                }
                renderer = try RasterBaseMapRenderer(package: try session.package.tilePackage(entry))
            } catch {
                problem = "the base map '\(layer.title)' is not drawn: \(error)"
            }
        }
        rasterBaseMapState = (renderer, problem)
        return renderer
    }

    static func openBackdrop(_ layer: OperationalLayer, package: MobileMapPackage, mapEntry: ZipEntry) throws -> BackdropRenderer {
        guard let path = layer.dataPath, let entry = package.entry(for: path, mapEntry: mapEntry) else {
            throw ViewerError(kind: .unreadableLayer, path: package.path, message: "no vector tile package at \(layer.path ?? "(no path)")")
        }
        return try BackdropRenderer.open(try package.tilePackage(entry))
    }

    /// Draws the view: the backdrop, the operational layers shown and in scale (bottom
    /// first), a scale bar and the package's credits, as pixels or (`format` SVG or PDF) as
    /// vectors. Nothing it cannot draw fails the picture: each problem is a warning.
    ///
    /// With `labelCells`, the picture is for a terminal that prints it as symbols in that many
    /// cells: the operational layers' labels, the scale bar's distance and the credits are not
    /// drawn but set as text on those cells (`RenderedView.cellLabels`). The backdrop's own
    /// labels are still drawn.
    ///
    /// The labels drawn into the picture are placed in one `LabelPlacer`, so none is drawn
    /// over another or under the credits: the credits' box first, then the operational
    /// layers' labels (drawn above everything, placed from the top layer down), then the
    /// backdrop's (drawn under the layers, placed from the top of its style down), each only
    /// where those before left room.
    public func render(
        _ view: MapView, background: RGBAColor = RGBAColor(red: 242, green: 239, blue: 233), format: PictureFormat = .png,
        labelCells: (columns: Int, rows: Int)? = nil
    ) throws -> RenderedView {
        let canvas: MapCanvas
        do {
            canvas = try MapCanvas(width: view.width, height: view.height, extent: view.extent, background: background, format: format)
        } catch {
            throw ViewerError(kind: .invalidView, path: session.package.path, message: error.message)
        }
        var warnings: [String] = [], findings: [String] = []
        var backdrop = backdrop()
        if backdrop != nil, !Self.sameCRS(crs, .webMercator) {
            warnings.append("the vector tile backdrop is in Web Mercator and the map in \(crs): it is not drawn")
            backdrop = nil
        }
        var raster = rasterBaseMap()
        if raster != nil, !Self.sameCRS(crs, .webMercator) {
            warnings.append("the raster base map is on the Web Mercator tiling scheme and the map in \(crs): it is not drawn")
            raster = nil
        }
        raster?.draw(on: canvas, opacity: baseMapLayers.first { $0.type == "ArcGISTiledMapServiceLayer" && $0.isVisible }?.opacity ?? 1)
        let shown = layers.filter { $0.isFeatureLayer && isShown($0) && $0.isInScale(view.scale) }
        var labels = FeatureLabels(canvas: canvas, dpi: view.dpi)
        var cellLabels = labelCells.map { TerminalLabels(canvas: canvas, columns: $0.columns, rows: $0.rows, dpi: view.dpi) }
        var placer = LabelPlacer(width: view.width, height: view.height)
        let credits = attribution()
        if let credits, cellLabels == nil { reserveAttribution(credits, on: canvas, pixelRatio: view.dpi / 96, in: &placer) }
        var layerFindings: [String] = [], labelFindings: [String] = [], labelWarnings: [String] = []
        func collectLabels(on target: MapCanvas) {
            if var cells = cellLabels {
                collectOperationalLabels(shown, view: view, canvas: target, into: &cells, findings: &labelFindings, warnings: &labelWarnings)
                cellLabels = cells
            } else {
                collectOperationalLabels(shown, view: view, canvas: target, into: &labels, findings: &labelFindings, warnings: &labelWarnings)
            }
        }
        var missingGlyphs = 0
        if let backdrop, format == .png, !shown.isEmpty, drawsLayersBesideBackdrop {
            // The backdrop and the operational layers share nothing until they meet on the
            // picture: the layers are drawn on a clear canvas of the same view on a second
            // core while the backdrop is drawn, then laid over it. Painting over is
            // associative, so the picture is the one drawn in turn (to the rounding of 8-bit
            // channels), in about the time of the slower half.
            let overlay: MapCanvas
            do {
                overlay = try MapCanvas(
                    width: view.width, height: view.height, extent: view.extent, background: RGBAColor(red: 0, green: 0, blue: 0, alpha: 0))
            } catch {
                throw ViewerError(kind: .invalidView, path: session.package.path, message: error.message)
            }
            bothAtOnce(
                { backdrop.drawWithoutLabels(on: canvas, dpi: view.dpi) },
                {
                    self.drawOperational(shown, view: view, on: overlay, findings: &layerFindings)
                    collectLabels(on: overlay)
                })
            // The backdrop's labels go under the layers, but give way to the layers' labels.
            missingGlyphs += labels.place(in: &placer, canvas: canvas)
            backdrop.drawLabels(on: canvas, placingIn: &placer)
            canvas.draw(overlay, x: 0, y: 0)
            labelWarnings += overlay.warnings
        } else {
            backdrop?.drawWithoutLabels(on: canvas, dpi: view.dpi)
            collectLabels(on: canvas)
            missingGlyphs += labels.place(in: &placer, canvas: canvas)
            backdrop?.drawLabels(on: canvas, placingIn: &placer)
            drawOperational(shown, view: view, on: canvas, findings: &layerFindings)
        }
        if let backdrop {
            warnings += backdrop.problems
            findings += backdrop.damage
            for (key, layers) in backdrop.unsupported.sorted(by: { $0.key < $1.key }) {
                warnings.append("the backdrop style's \(key) is not drawn (\(layers) style layer\(layers == 1 ? "" : "s"))")
            }
        }
        if let problem = backdropState?.problem { findings.append(problem) }
        if let problem = rasterBaseMapState?.problem { findings.append(problem) }
        warnings += (raster?.problems ?? []).map { "the raster base map: \($0)" }
        findings += layerFindings + labelFindings
        warnings += labelWarnings
        missingGlyphs += labels.draw(on: canvas)
        if missingGlyphs > 0 { warnings.append("\(missingGlyphs) characters of labels have no glyph in the installed fonts (install fonts-noto-core)") }
        warnings += canvas.warnings
        drawScaleBar(view, on: canvas, cellLabels: &cellLabels)
        if let credits { drawAttribution(credits, on: canvas, pixelRatio: view.dpi / 96, cellLabels: &cellLabels) }
        return RenderedView(canvas: canvas, warnings: warnings, findings: findings, cellLabels: cellLabels)
    }

    /// The operational layers `shown` (bottom first) drawn on `canvas`.
    func drawOperational(_ shown: [ViewerLayer], view: MapView, on canvas: MapCanvas, findings: inout [String]) {
        for layer in shown {
            do {
                try draw(layer, view: view, on: canvas)
            } catch {
                findings.append("layer '\(layer.title)' is not drawn: \(error)")
            }
        }
    }

    /// The labels of the operational layers `shown` (bottom first) collected into `labels`
    /// (top layer first), to be placed before the backdrop's and drawn over everything.
    func collectOperationalLabels(
        _ shown: [ViewerLayer], view: MapView, canvas: MapCanvas, into labels: inout some MapLabelCollector, findings: inout [String], warnings: inout [String]
    ) {
        for layer in shown.reversed() where layer.definition.showLabels == true {
            do {
                try collectLabels(layer, view: view, canvas: canvas, into: &labels, warnings: &warnings)
            } catch {
                findings.append("the labels of layer '\(layer.title)' are not drawn: \(error)")
            }
        }
    }

    /// One operational layer: the features in the view's box (with a margin for symbols),
    /// through the R-tree and the layer's filter, reprojected when the layer's data is in
    /// another spatial reference.
    func draw(_ layer: ViewerLayer, view: MapView, on canvas: MapCanvas) throws {
        let source = try featureSource(for: layer)
        guard source.table.geometryProblem == nil else {
            throw ViewerError(kind: .unreadableLayer, path: source.table.database.path, message: source.table.geometryProblem!)
        }
        let margin = 64 * view.resolution
        let e = view.extent
        let margined = BoundingBox(minX: e.minX - margin, minY: e.minY - margin, maxX: e.maxX + margin, maxY: e.maxY + margin)
        guard let box = source.layerBox(margined) else { return }
        let fields = (layer.definition.renderer?.fields ?? []).filter { name in source.table.field(named: name) != nil }
        let cursor = try source.table.features(in: box, fields: fields)
        let toMap = source.toMap
        // A point drawn where one of the same class already stands (to half a pixel) changes
        // nothing an eye can see: one per half-pixel and class is drawn, as thumbnails do, so
        // a view of a million points costs what the points it can show cost. The points seen
        // are remembered in a fixed table of hashes, each slot keeping the last: a point it
        // forgets is drawn again (harmless), and the table never grows or rehashes.
        let slots = 1 << 18, mask = slots - 1
        let seen = UnsafeMutablePointer<Int>.allocate(capacity: slots)
        seen.initialize(repeating: 0, count: slots)
        defer { seen.deallocate() }
        let resolution = view.resolution, origin = e
        let features = MapFeatureStream(cursor, fields: fields, transform: toMap.map { t in { t.apply($0) } }, keep: { feature in
            guard toMap == nil, case .point(let p)? = feature.geometry?.shape else { return true }
            // A multiply-and-shift mix (splitmix64's finaliser) of the cell and the values:
            // a table of hashes needs spread, not SipHash's protection from chosen keys.
            func mix(_ h: UInt64, _ v: UInt64) -> UInt64 {
                var z = (h ^ v) &+ 0x9E37_79B9_7F4A_7C15
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return z ^ (z >> 31)
            }
            var h = mix(UInt64(bitPattern: Int64(((p.x - origin.minX) / resolution * 2).rounded(.down))), 1)
            h = mix(h, UInt64(bitPattern: Int64(((p.y - origin.minY) / resolution * 2).rounded(.down))))
            for v in feature.values {
                switch v {
                case .null: h = mix(h, 0)
                case .integer(let i): h = mix(h, UInt64(bitPattern: i))
                case .real(let d): h = mix(h, d.bitPattern)
                case .text(let s): h = mix(h, UInt64(bitPattern: Int64(s.hashValue)))
                case .blob(let b): h = mix(h, UInt64(bitPattern: Int64(b.hashValue)))
                }
            }
            let hash = Int(bitPattern: UInt(h)) | 1
            let slot = hash & mask
            if seen[slot] == hash { return false }
            seen[slot] = hash
            return true
        })
        var mapLayer = MapLayer(layer.definition, features: features)
        mapLayer.isVisible = true
        MapDrawing.draw([mapLayer], on: canvas)
        if let error = features.error { throw error }
    }

    /// A layer's labels in the view: each of its label classes that labels at the view's
    /// scale, over the features its `where` (and the layer's filter) keeps. A class whose
    /// expression is not read, or that names a field the table lacks, is a warning.
    func collectLabels(_ layer: ViewerLayer, view: MapView, canvas: MapCanvas, into labels: inout some MapLabelCollector, warnings: inout [String]) throws {
        let source = try featureSource(for: layer)
        guard source.table.geometryProblem == nil else { return }
        let e = view.extent
        guard let box = source.layerBox(e) else { return }
        let markerSize = layer.largestMarkerSize
        for labelClass in layer.definition.layerDefinition?.drawingInfo?.labelClasses ?? [] where labelClass.isInScale(view.scale) {
            if let problem = labelClass.problem {
                warnings.append("layer '\(layer.title)': \(problem)")
                continue
            }
            let missing = labelClass.fields.filter { source.formatter.column($0) == nil }
            if !missing.isEmpty {
                warnings.append("layer '\(layer.title)': a label names \(missing.map { "'\($0)'" }.joined(separator: ", ")), not a column of \(source.table.name)")
                continue
            }
            let table = try labelClass.whereClause.map { try Self.labelTable(source.table, layer: layer, where: $0) } ?? source.table
            let fields = labelClass.fields.compactMap(source.formatter.column)
            let cursor = try table.features(in: box, fields: fields)
            let toMap = source.toMap
            let features = MapFeatureStream(cursor, fields: fields, transform: toMap.map { t in { t.apply($0) } })
            let formatter = source.formatter
            labels.add(labelClass, features: features, canvas: canvas, markerSize: markerSize) { feature in
                formatter.labelText(labelClass, value: feature.value(of:))
            }
            if let error = features.error { throw error }
        }
    }

    /// The features a label class with a `where` labels: the layer's table filtered by its
    /// definition expression and the clause.
    static func labelTable(_ table: FeatureTable, layer: ViewerLayer, where clause: String) throws -> FeatureTable {
        let filter = [layer.definition.layerDefinition?.definitionExpression, clause].compactMap { $0 }.map { "(\($0))" }.joined(separator: " AND ")
        return try FeatureTable(database: table.database, table: table.name, definitionExpression: filter)
    }

    /// A scale bar in the bottom left corner: the longest round ground distance (1, 2 or 5
    /// times a power of ten, in metres or kilometres) that fits in a fifth of the width,
    /// measured at the view's centre (Web Mercator stretches distances by 1 / cos(latitude)).
    /// Its distance is text on the terminal's cells when `cellLabels` are given.
    func drawScaleBar(_ view: MapView, on canvas: MapCanvas, cellLabels: inout TerminalLabels?) {
        let ratio = view.dpi / 96
        var metresPerPixel = view.resolution * view.metresPerUnit
        if Self.sameCRS(crs, .webMercator), let center = try? toLongitudeLatitude(view.center) {
            metresPerPixel *= cos(center.y * Double.pi / 180)
        }
        guard metresPerPixel > 0, metresPerPixel.isFinite else { return }
        let budget = Double(view.width) / 5 * metresPerPixel
        var length = pow(10, log10(budget).rounded(.down))
        for factor in [5.0, 2.0] where length * factor <= budget {
            length *= factor
            break
        }
        let pixels = length / metresPerPixel
        guard pixels >= 8 else { return }
        let label = length >= 1000 ? "\(JSONWriter.formatNumber(length / 1000)) km" : "\(JSONWriter.formatNumber(length)) m"
        let x = 10 * ratio, y = Double(view.height) - 12 * ratio
        let white = RGBAColor(red: 255, green: 255, blue: 255, alpha: 200), ink = RGBAColor(red: 40, green: 40, blue: 40)
        canvas.fillRectangle(x: x - 2 * ratio, y: y - 2 * ratio, width: pixels + 4 * ratio, height: 6 * ratio, color: white)
        canvas.fillRectangle(x: x, y: y, width: pixels, height: 2 * ratio, color: ink)
        canvas.fillRectangle(x: x, y: y - 5 * ratio, width: 2 * ratio, height: 7 * ratio, color: ink)
        canvas.fillRectangle(x: x + pixels - 2 * ratio, y: y - 5 * ratio, width: 2 * ratio, height: 7 * ratio, color: ink)
        if cellLabels != nil {
            cellLabels?.put(label, x: x, y: y - 6 * ratio, anchor: "bottom-left")
        } else {
            canvas.drawText(label, x: x, y: y - 6 * ratio, size: 11 * ratio, anchor: "bottom-left", color: ink, halo: RGBAColor(red: 255, green: 255, blue: 255), haloWidth: 2 * ratio)
        }
    }

    /// The package's credits (its `accessInformation`) and the backdrop's attribution, as
    /// plain text; nil when there are none.
    func attribution() -> String? {
        var parts: [String] = []
        if let credits = session.package.manifest.accessInformation, !credits.isEmpty { parts.append(credits) }
        if let attribution = backdropState?.renderer?.archive.metadata.attribution, !attribution.isEmpty, !parts.contains(attribution) {
            parts.append(attribution)
        }
        guard !parts.isEmpty else { return nil }
        return HTMLText.plain(parts.joined(separator: " | "))
    }

    /// Where the credits stand at `pixelRatio`: their size, and their bottom right corner's
    /// distance from the picture's, in pixels.
    static func attributionLayout(pixelRatio: Double) -> (size: Double, right: Double, bottom: Double, haloWidth: Double) {
        (9 * pixelRatio, 4 * pixelRatio, 3 * pixelRatio, 1.5 * pixelRatio)
    }

    /// Keeps labels off the box the credits `text` takes in the bottom right corner of
    /// `canvas`, halo included.
    func reserveAttribution(_ text: String, on canvas: MapCanvas, pixelRatio: Double, in placer: inout LabelPlacer) {
        let layout = Self.attributionLayout(pixelRatio: pixelRatio)
        let (width, height) = canvas.textSize(text, size: layout.size)
        placer.reserve(
            x: Double(canvas.width) - layout.right - width - layout.haloWidth, y: Double(canvas.height) - layout.bottom - height - layout.haloWidth,
            width: width + 2 * layout.haloWidth, height: height + 2 * layout.haloWidth)
    }

    /// The credits `text` in the bottom right corner; text on the terminal's cells when
    /// `cellLabels` are given.
    func drawAttribution(_ text: String, on canvas: MapCanvas, pixelRatio: Double, cellLabels: inout TerminalLabels?) {
        let layout = Self.attributionLayout(pixelRatio: pixelRatio)
        let x = Double(canvas.width) - layout.right, y = Double(canvas.height) - layout.bottom
        if cellLabels != nil {
            cellLabels?.put(text, x: x, y: y, anchor: "bottom-right")
            return
        }
        canvas.drawText(
            text, x: x, y: y, size: layout.size, anchor: "bottom-right", color: RGBAColor(red: 60, green: 60, blue: 60),
            halo: RGBAColor(red: 255, green: 255, blue: 255, alpha: 220), haloWidth: layout.haloWidth)
    }
}
