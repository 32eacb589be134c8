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

    static func openBackdrop(_ layer: OperationalLayer, package: MobileMapPackage, mapEntry: ZipEntry) throws -> BackdropRenderer {
        guard let path = layer.dataPath, let entry = package.entry(for: path, mapEntry: mapEntry) else {
            throw ViewerError(kind: .unreadableLayer, path: package.path, message: "no vector tile package at \(layer.path ?? "(no path)")")
        }
        return try BackdropRenderer.open(try package.tilePackage(entry))
    }

    /// Draws the view: the backdrop, the operational layers shown and in scale (bottom
    /// first), a scale bar and the package's credits, as pixels or (`format` SVG or PDF) as
    /// vectors. Nothing it cannot draw fails the picture: each problem is a warning.
    public func render(
        _ view: MapView, background: RGBAColor = RGBAColor(red: 242, green: 239, blue: 233), format: PictureFormat = .png
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
        let shown = layers.filter { $0.isFeatureLayer && isShown($0) && $0.isInScale(view.scale) }
        var labels = FeatureLabels(canvas: canvas, dpi: view.dpi)
        var layerFindings: [String] = [], labelWarnings: [String] = []
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
                { backdrop.draw(on: canvas, dpi: view.dpi) },
                { self.drawOperational(shown, view: view, on: overlay, labels: &labels, findings: &layerFindings, warnings: &labelWarnings) })
            canvas.draw(overlay, x: 0, y: 0)
            labelWarnings += overlay.warnings
        } else {
            backdrop?.draw(on: canvas, dpi: view.dpi)
            drawOperational(shown, view: view, on: canvas, labels: &labels, findings: &layerFindings, warnings: &labelWarnings)
        }
        if let backdrop {
            warnings += backdrop.problems
            findings += backdrop.damage
            for (key, layers) in backdrop.unsupported.sorted(by: { $0.key < $1.key }) {
                warnings.append("the backdrop style's \(key) is not drawn (\(layers) style layer\(layers == 1 ? "" : "s"))")
            }
        }
        if let problem = backdropState?.problem { findings.append(problem) }
        findings += layerFindings
        warnings += labelWarnings
        let missingGlyphs = labels.draw(on: canvas)
        if missingGlyphs > 0 { warnings.append("\(missingGlyphs) characters of labels have no glyph in the installed fonts (install fonts-noto-core)") }
        warnings += canvas.warnings
        drawScaleBar(view, on: canvas)
        drawAttribution(on: canvas, pixelRatio: view.dpi / 96)
        return RenderedView(canvas: canvas, warnings: warnings, findings: findings)
    }

    /// The operational layers `shown` (bottom first) drawn on `canvas`, and their labels
    /// collected into `labels` (top layer first) to be placed once everything else is drawn.
    func drawOperational(
        _ shown: [ViewerLayer], view: MapView, on canvas: MapCanvas, labels: inout FeatureLabels, findings: inout [String], warnings: inout [String]
    ) {
        for layer in shown {
            do {
                try draw(layer, view: view, on: canvas)
            } catch {
                findings.append("layer '\(layer.title)' is not drawn: \(error)")
            }
        }
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
    func collectLabels(_ layer: ViewerLayer, view: MapView, canvas: MapCanvas, into labels: inout FeatureLabels, warnings: inout [String]) throws {
        let source = try featureSource(for: layer)
        guard source.table.geometryProblem == nil else { return }
        let e = view.extent
        guard let box = source.layerBox(e) else { return }
        let markerSize = (layer.classes?.legend ?? []).reduce(0.0) { size, entry in
            switch entry.symbol {
            case .simpleMarker(let m): return max(size, m.size ?? 8)
            case .pictureMarker(let p): return max(size, p.height ?? p.width ?? 0)
            default: return size
            }
        }
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
            var table = source.table
            if let clause = labelClass.whereClause {
                let filter = [layer.definition.layerDefinition?.definitionExpression, clause].compactMap { $0 }.map { "(\($0))" }.joined(separator: " AND ")
                table = try FeatureTable(database: table.database, table: table.name, definitionExpression: filter)
            }
            let fields = labelClass.fields.compactMap(source.formatter.column)
            let cursor = try table.features(in: box, fields: fields)
            let toMap = source.toMap
            let features = MapFeatureStream(cursor, fields: fields, transform: toMap.map { t in { t.apply($0) } })
            let formatter = source.formatter
            labels.add(labelClass, features: features, canvas: canvas, markerSize: markerSize) { feature in
                labelClass.text { name, domainName in
                    let column = formatter.column(name) ?? name
                    return formatter.labelText(column, feature.value(of: column), codedName: domainName || labelClass.useCodedValues)
                }
            }
            if let error = features.error { throw error }
        }
    }

    /// A scale bar in the bottom left corner: the longest round ground distance (1, 2 or 5
    /// times a power of ten, in metres or kilometres) that fits in a fifth of the width,
    /// measured at the view's centre (Web Mercator stretches distances by 1 / cos(latitude)).
    func drawScaleBar(_ view: MapView, on canvas: MapCanvas) {
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
        canvas.drawText(label, x: x, y: y - 6 * ratio, size: 11 * ratio, anchor: "bottom-left", color: ink, halo: RGBAColor(red: 255, green: 255, blue: 255), haloWidth: 2 * ratio)
    }

    /// The package's credits (its `accessInformation`) and the backdrop's attribution, in the
    /// bottom right corner.
    func drawAttribution(on canvas: MapCanvas, pixelRatio: Double) {
        var parts: [String] = []
        if let credits = session.package.manifest.accessInformation, !credits.isEmpty { parts.append(credits) }
        if let attribution = backdropState?.renderer?.archive.metadata.attribution, !attribution.isEmpty, !parts.contains(attribution) {
            parts.append(attribution)
        }
        guard !parts.isEmpty else { return }
        let text = PopupFormatter.plainText(parts.joined(separator: " | "))
        canvas.drawText(
            text, x: Double(canvas.width) - 4 * pixelRatio, y: Double(canvas.height) - 3 * pixelRatio, size: 9 * pixelRatio,
            anchor: "bottom-right", color: RGBAColor(red: 60, green: 60, blue: 60), halo: RGBAColor(red: 255, green: 255, blue: 255, alpha: 220), haloWidth: 1.5 * pixelRatio)
    }
}
