import MapbookData
import MapbookLibrary
import MapbookSearch
import MapbookSupport

/// A feature found by identify, with its pop-up.
public struct IdentifyResult: Sendable {
    public var layer: ViewerLayer
    public var featureID: Int64
    /// From the point to the feature, in map units: 0 inside a polygon.
    public var distance: Double
    /// The feature's geometry in the map's spatial reference.
    public var geometry: Geometry?
    public var popup: Popup
}

/// What identify found, and the layers it could not search (with why).
public struct IdentifyReport: Sendable {
    public var results: [IdentifyResult]
    public var skipped: [(layer: String, reason: String)]
}

extension ViewerMap {
    /// The features under `point` (in the map's spatial reference) in a view at `view`'s scale,
    /// top layer first, nearest first within a layer; at most `limit` in all.
    ///
    /// Searched are the operational feature layers that are visible and in scale at that
    /// scale, or every feature layer with `allLayers`. Points and lines count when within
    /// `tolerance` pixels at that scale (5 by default, as the Offline Mapbook app identifies);
    /// polygons when they contain the point (a point in a hole is not in the polygon). Each
    /// layer's `definitionExpression` applies. A layer whose data cannot be read is skipped
    /// and reported, never a failed identify.
    public func identify(at point: Position, view: MapView, tolerance: Double = 5, limit: Int = .max, allLayers: Bool = false) -> IdentifyReport {
        var report = IdentifyReport(results: [], skipped: [])
        let reach = max(tolerance, 0) * view.resolution
        for layer in layers.reversed() where layer.isFeatureLayer {
            guard report.results.count < limit else { break }
            guard allLayers || (isShown(layer) && layer.isInScale(view.scale)) else { continue }
            do {
                let found = try identify(in: layer, at: point, reach: reach, limit: limit - report.results.count)
                report.results += found
            } catch {
                report.skipped.append((layer.title, "\(error)"))
            }
        }
        return report
    }

    /// Whether a layer is shown: it and every group it is in are visible.
    public func isShown(_ layer: ViewerLayer) -> Bool {
        guard layer.isVisible, let index = layers.firstIndex(where: { $0.id == layer.id }) else { return false }
        var depth = layer.depth
        for parent in layers[..<index].reversed() where parent.depth < depth {
            if !parent.isVisible { return false }
            depth = parent.depth
            if depth == 0 { break }
        }
        return true
    }

    func identify(in layer: ViewerLayer, at point: Position, reach: Double, limit: Int) throws -> [IdentifyResult] {
        let source = try featureSource(for: layer)
        let table = source.table
        if let problem = table.geometryProblem { throw ViewerError(kind: .unreadableLayer, path: table.database.path, message: "layer '\(layer.title)': \(problem)") }
        let formatter = source.formatter
        let columns = formatter.neededColumns
        var found: [(feature: TableFeature, distance: Double, geometry: Geometry?)] = []
        if let toMap = source.toMap {
            // The layer has another spatial reference: search the box around the point as it
            // falls in the layer's, and measure in the map's.
            let around = BoundingBox(minX: point.x - reach, minY: point.y - reach, maxX: point.x + reach, maxY: point.y + reach)
            guard let box = source.layerBox(around) else { return [] }
            let cursor = try table.features(in: box, fields: columns)
            while let feature = try cursor.next() {
                guard let g = feature.geometry, let mapped = toMap.apply(g) else { continue }
                let d = mapped.distance(to: point)
                if d <= reach { found.append((feature, d, mapped)) }
            }
            found.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.feature.id < $1.feature.id }
        } else {
            found = try table.features(within: reach, of: point, fields: columns).map { ($0.feature, $0.distance, $0.feature.geometry) }
        }
        var results: [IdentifyResult] = []
        for (feature, distance, geometry) in found {
            // Polygons are found by containing the point, not by coming near it.
            if let geometry, Self.isAreal(geometry), distance > 0 { continue }
            var popup = formatter.popup(featureID: feature.id, values: feature.values)
            addRelated(to: &popup, source: source, featureID: feature.id)
            results.append(IdentifyResult(layer: layer, featureID: feature.id, distance: distance, geometry: geometry, popup: popup))
            if results.count >= limit { break }
        }
        return results
    }

    static func isAreal(_ g: Geometry) -> Bool {
        switch g.shape {
        case .polygon, .multiPolygon: return true
        case .geometryCollection(let parts): return !parts.isEmpty && parts.allSatisfy(isAreal)
        default: return false
        }
    }

    /// The pop-up of a feature by id (a search result's), with its geometry in the map's
    /// spatial reference.
    public func popup(layer: ViewerLayer, featureID: Int64) throws -> IdentifyResult? {
        let source = try featureSource(for: layer)
        guard let feature = try source.table.feature(id: featureID, fields: source.formatter.neededColumns) else { return nil }
        let geometry = feature.geometry.flatMap { g in source.toMap.map { $0.apply(g) } ?? g }
        var popup = source.formatter.popup(featureID: featureID, values: feature.values)
        addRelated(to: &popup, source: source, featureID: featureID)
        return IdentifyResult(layer: layer, featureID: featureID, distance: 0, geometry: geometry, popup: popup)
    }
}

extension ViewerMap {
    /// The pop-up of the first feature the package's locator (with `library`'s edits) finds
    /// for `text`; a package without a locator is a usage error (`noLocator`).
    public func popup(searching text: String, library: DeviceLibrary) throws -> IdentifyResult? {
        guard let locator = try EditedLocator.open(session.package, library: library) else {
            throw ViewerError(kind: .noLocator, path: session.package.path, message: "has no locator to search; use --at LON,LAT")
        }
        return try popup(searching: text, locator: locator)
    }

    /// The pop-up of the first feature `locator` finds for `text` (of the ten best hits, the
    /// first in a layer of this map), as `identify --search` opens it.
    public func popup(searching text: String, locator: CompositeLocator) throws -> IdentifyResult? {
        for candidate in try locator.geocode(text, max: 10) {
            guard let layer = layer(of: candidate) else { continue }
            if let result = try popup(layer: layer, featureID: candidate.fid) { return result }
        }
        return nil
    }

    /// The pop-ups a search result opens: the features of this map that carry the best hit's
    /// label, up to the best hit itself; when the map shows none of them (a street of the
    /// backdrop's locator), what the locator knows of the best hit.
    public func popups(for candidates: [GeocodeCandidate]) throws -> [Popup] {
        guard let best = candidates.first else { return [] }
        var popups: [Popup] = []
        for candidate in candidates where candidate.label == best.label || candidate.fid == best.fid {
            guard let layer = layer(of: candidate), let result = try popup(layer: layer, featureID: candidate.fid) else { continue }
            popups.append(result.popup)
            if candidate.fid == best.fid { break }
        }
        return popups.isEmpty ? [Popup(locatorHit: best)] : popups
    }

    /// The layer of this map whose table a search result comes from.
    private func layer(of candidate: GeocodeCandidate) -> ViewerLayer? {
        layers.first { $0.definition.dataPath?.table == candidate.layer }
    }
}
