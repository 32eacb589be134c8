import MapbookData
import MapbookLibrary
import MapbookPackage
import MapbookRender
import MapbookSupport

/// One map of a package, opened for viewing: its layers in drawing order with the visibility
/// this device chose, its base map, bookmarks and starting view.
public final class ViewerMap {
    public let session: MapSession
    public let entry: ZipEntry
    public let mobileMap: MobileMap
    public var name: String { mobileMap.displayName }
    /// The key the device library keeps this map's state under.
    public let key: String
    /// Operational layers in drawing order, the bottom one first; group layers are followed
    /// by their sublayers (`depth` one more).
    public private(set) var layers: [ViewerLayer]
    /// The base map's layers in drawing order, the bottom one first.
    public let baseMapLayers: [ViewerLayer]
    public let bookmarks: [Bookmark]
    /// The map's spatial reference (Web Mercator when it names none, as web maps default).
    public let spatialReference: SpatialReference
    public let crs: CoordinateReferenceSystem
    /// Metres per map unit, for scales (`MapView`).
    public let metresPerUnit: Double
    /// Feature layers' tables, opened on first use (`featureSource(for:)`).
    var sources: [String: FeatureSource] = [:]

    /// After the data was edited: the layers read it again.
    public func dataChanged() {
        sources = [:]
        session.reloadData()
    }
    /// The base map's backdrop renderer, opened on first use, or why it cannot be drawn.
    var backdropState: (renderer: BackdropRenderer?, problem: String?)?
    var rasterBaseMapState: (renderer: RasterBaseMapRenderer?, problem: String?)?
    /// Whether pictures draw the operational layers on a second thread while the backdrop is
    /// drawn (`render`); tests turn it off to compare with the layers drawn in turn.
    var drawsLayersBesideBackdrop = true

    init(session: MapSession, summary: MapSession.MapSummary, state: MapViewerState) {
        self.session = session
        entry = summary.entry
        mobileMap = summary.map
        key = summary.key
        let map = summary.map.map
        spatialReference = map.spatialReference ?? .webMercator
        if let epsg = spatialReference.epsg {
            crs = CoordinateReferenceSystem(epsg: epsg)
        } else if let wkt = spatialReference.wkt {
            crs = CoordinateReferenceSystem(wkt: wkt)
        } else {
            crs = .webMercator
        }
        metresPerUnit = spatialReference.isGeographic ? MapView.metresPerDegree : 1
        var layers: [ViewerLayer] = []
        for (i, top) in (map.operationalLayers ?? []).enumerated() {
            for (j, (layer, depth)) in top.flattened().enumerated() {
                layers.append(ViewerLayer(layer, depth: depth, isBaseMap: false, fallbackID: "\(i + 1)" + (j > 0 ? ".\(j)" : "")))
            }
        }
        baseMapLayers = (map.baseMap?.baseMapLayers ?? []).enumerated().map { i, layer in
            ViewerLayer(layer, depth: 0, isBaseMap: true, fallbackID: "basemap-\(i + 1)")
        }
        bookmarks = map.bookmarks ?? []
        self.layers = layers
        apply(state)
    }

    /// Applies the visibility kept on this device; ids of layers no longer in the map are
    /// ignored.
    func apply(_ state: MapViewerState) {
        for i in layers.indices {
            if let visible = state.layerVisibility[layers[i].id] {
                layers[i].isVisible = visible
                layers[i].isChangedByUser = visible != layers[i].mapVisibility
            } else {
                layers[i].isVisible = layers[i].mapVisibility
                layers[i].isChangedByUser = false
            }
        }
    }

    /// The operational layer with this id, else this title (any case).
    public func layer(named name: String) throws(ViewerError) -> ViewerLayer {
        let lowered = name.lowercased()
        if let layer = layers.first(where: { $0.id == name }) ?? layers.first(where: { $0.title == name })
            ?? layers.first(where: { $0.title.lowercased() == lowered }) {
            return layer
        }
        throw ViewerError(kind: .unknownLayer, path: session.package.path, message: "map '\(self.name)' has no layer '\(name)'", choices: layers.map(\.title))
    }

    /// The bookmark with this name (any case).
    public func bookmark(named name: String) throws(ViewerError) -> Bookmark {
        let lowered = name.lowercased()
        if let b = bookmarks.first(where: { $0.name == name }) ?? bookmarks.first(where: { $0.name?.lowercased() == lowered }) {
            return b
        }
        throw ViewerError(
            kind: .unknownBookmark, path: session.package.path,
            message: bookmarks.isEmpty ? "map '\(self.name)' has no bookmarks" : "map '\(self.name)' has no bookmark '\(name)'",
            choices: bookmarks.compactMap(\.name))
    }

    /// Shows or hides layers (by id or title) and keeps the choice on this device; `nil`
    /// for a layer returns it to the map's visibility. Returns the layers changed.
    public func setVisibility(_ changes: [(layer: String, visible: Bool?)]) throws -> [ViewerLayer] {
        var resolved: [(id: String, visible: Bool?)] = []
        for change in changes {
            resolved.append((try layer(named: change.layer).id, change.visible))
        }
        var state = MapViewerState()
        if let library = session.library {
            state = try library.updateViewerState(package: session.packageKey, map: key) { state in
                for (id, visible) in resolved {
                    let mapVisibility = layers.first { $0.id == id }?.mapVisibility
                    // A choice equal to the map's is no choice: the map may change it later.
                    state.layerVisibility[id] = visible == mapVisibility ? nil : visible
                }
            }
        } else {
            for (id, visible) in resolved { state.layerVisibility[id] = visible }
        }
        apply(state)
        return resolved.compactMap { r in layers.first { $0.id == r.id } }
    }

    /// Forgets every visibility chosen on this device for this map.
    public func resetVisibility() throws {
        if let library = session.library {
            try library.updateViewerState(package: session.packageKey, map: key) { $0.layerVisibility = [:] }
        }
        apply(MapViewerState())
    }

    /// The view the map opens at: its initial viewpoint, else its item's extent, else the
    /// package's, fitted to `width` x `height`.
    public func initialView(width: Int, height: Int, dpi: Double = 96) throws(ViewerError) -> MapView {
        if let viewpoint = mobileMap.map.initialState?.viewpoint, let view = try view(of: viewpoint, width: width, height: height, dpi: dpi) {
            return view
        }
        if let extent = mobileMap.item.extent, let view = try view(ofExtent: extent, width: width, height: height, dpi: dpi) {
            return view
        }
        if let box = session.package.manifest.extent, box.hasArea {
            return try view(ofLongitudeLatitude: box, width: width, height: height, dpi: dpi)
        }
        throw ViewerError(kind: .invalidView, path: session.package.path, message: "map '\(name)' has no initial viewpoint or extent; give --bbox or --center and --scale")
    }

    /// The view a bookmark shows: its viewpoint (centre and scale, or extent), else its extent.
    public func view(of bookmark: Bookmark, width: Int, height: Int, dpi: Double = 96) throws(ViewerError) -> MapView {
        if let viewpoint = bookmark.viewpoint, let view = try view(of: viewpoint, width: width, height: height, dpi: dpi) { return view }
        if let extent = bookmark.extent, let view = try view(ofExtent: extent, width: width, height: height, dpi: dpi) { return view }
        throw ViewerError(kind: .invalidView, path: session.package.path, message: "bookmark '\(bookmark.name ?? "")' has neither a viewpoint nor an extent")
    }

    func view(of viewpoint: Viewpoint, width: Int, height: Int, dpi: Double) throws(ViewerError) -> MapView? {
        if let point = viewpoint.targetPoint, let x = point.x, let y = point.y, let scale = viewpoint.scale, scale > 0 {
            let center = try toMap(Position(x: x, y: y), from: point.spatialReference)
            return try MapView(center: center, scale: scale, width: width, height: height, dpi: dpi, metresPerUnit: metresPerUnit)
        }
        if let extent = viewpoint.targetExtent, var view = try view(ofExtent: extent, width: width, height: height, dpi: dpi) {
            // A viewpoint's scale, when it gives one, wins over fitting its extent.
            if let scale = viewpoint.scale, scale > 0 { view.scale = scale }
            return view
        }
        return nil
    }

    func view(ofExtent extent: Envelope, width: Int, height: Int, dpi: Double) throws(ViewerError) -> MapView? {
        guard let box = extent.bounds else { return nil }
        let sr = extent.spatialReference
        if sr == nil || sr?.epsg == spatialReference.epsg {
            return try MapView(extent: box, width: width, height: height, dpi: dpi, metresPerUnit: metresPerUnit)
        }
        let a = try toMap(Position(x: box.minX, y: box.minY), from: sr), b = try toMap(Position(x: box.maxX, y: box.maxY), from: sr)
        return try MapView(extent: BoundingBox(minX: min(a.x, b.x), minY: min(a.y, b.y), maxX: max(a.x, b.x), maxY: max(a.y, b.y)), width: width, height: height, dpi: dpi, metresPerUnit: metresPerUnit)
    }

    /// The view of a longitude/latitude box (`--bbox`).
    public func view(ofLongitudeLatitude box: BoundingBox, width: Int, height: Int, dpi: Double = 96) throws(ViewerError) -> MapView {
        guard box.minX < box.maxX, box.minY < box.maxY, box.minY >= -90, box.maxY <= 90 else {
            throw ViewerError(kind: .invalidView, path: "--bbox", message: "(\(box.minX), \(box.minY), \(box.maxX), \(box.maxY)) is not a box of longitudes and latitudes: give XMIN,YMIN,XMAX,YMAX with XMIN < XMAX, YMIN < YMAX, latitudes within ±90")
        }
        let a = try fromLongitudeLatitude(Position(x: box.minX, y: box.minY)), b = try fromLongitudeLatitude(Position(x: box.maxX, y: box.maxY))
        return try MapView(extent: BoundingBox(minX: a.x, minY: a.y, maxX: b.x, maxY: b.y), width: width, height: height, dpi: dpi, metresPerUnit: metresPerUnit)
    }

    /// The view centred on a longitude/latitude at a scale (`--center`, `--scale`).
    public func view(centeredOn lonLat: Position, scale: Double, width: Int, height: Int, dpi: Double = 96) throws(ViewerError) -> MapView {
        try MapView(center: try fromLongitudeLatitude(lonLat), scale: scale, width: width, height: height, dpi: dpi, metresPerUnit: metresPerUnit)
    }

    /// A WGS84 longitude/latitude in the map's spatial reference.
    public func fromLongitudeLatitude(_ p: Position) throws(ViewerError) -> Position {
        guard p.x.isFinite, p.y.isFinite, abs(p.y) <= 90, abs(p.x) <= 540 else {
            throw ViewerError(kind: .invalidView, path: "", message: "(\(p.x), \(p.y)) is not a longitude and latitude")
        }
        return try toMap(p, from: .wgs84)
    }

    /// A map position as WGS84 longitude/latitude.
    public func toLongitudeLatitude(_ p: Position) throws(ViewerError) -> Position {
        try Self.transform(p, from: crs, to: .wgs84)
    }

    func toMap(_ p: Position, from sr: SpatialReference?) throws(ViewerError) -> Position {
        guard let sr, sr.epsg != spatialReference.epsg || sr.epsg == nil else { return p }
        let source: CoordinateReferenceSystem = sr.epsg.map { CoordinateReferenceSystem(epsg: $0) } ?? sr.wkt.map { CoordinateReferenceSystem(wkt: $0) } ?? .wgs84
        return try Self.transform(p, from: source, to: crs)
    }

    static func transform(_ p: Position, from source: CoordinateReferenceSystem, to target: CoordinateReferenceSystem) throws(ViewerError) -> Position {
        let transform: CoordinateTransform
        do {
            transform = try CoordinateTransform(from: source, to: target)
        } catch {
            throw ViewerError(kind: .invalidView, path: "", message: "cannot convert coordinates from \(source) to \(target): \(error.message)")
        }
        guard let q = transform.apply(p) else {
            throw ViewerError(kind: .invalidView, path: "", message: "(\(p.x), \(p.y)) in \(source) has no place in \(target)")
        }
        return q
    }
}
