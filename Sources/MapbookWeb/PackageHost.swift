import MapbookData
import MapbookLibrary
import MapbookPackage
import MapbookSearch
import MapbookSupport
import MapbookTiles
import MapbookViewer
import Synchronization

/// One package opened for the web: its `MapSession`, the maps opened so far, its locator
/// (with this device's edits) and its base maps' tile readers. The viewer's types are not
/// thread-safe, so each package is used by one request at a time (`withSession`); base map
/// tiles, the bulk of a map page's requests, are read under locks of their own so they never
/// wait behind a pop-up or a tile made from features.
///
/// Public for the portal's item pages, which draw a stored package's maps with the same
/// style, tiles and resources (`style`, `baseMapTile`, `baseMapResource`, `featureTile`).
public final class PackageHost: Sendable {
    let key: String
    let path: String
    /// The package's GUID, which names its working copy of edits.
    let guid: String?
    /// A sync of this package is under way (one at a time).
    private let syncing = Atomic<Bool>(false)

    final class State {
        let session: MapSession
        var maps: [Int: ViewerMap] = [:]
        var locator: CompositeLocator??
        init(session: MapSession) { self.session = session }

        /// Map `number` (from 1), opened once.
        func map(_ number: Int) throws -> ViewerMap {
            if let open = maps[number] { return open }
            let map = try session.map(number: number)
            maps[number] = map
            return map
        }

        func compositeLocator() throws -> CompositeLocator? {
            if let locator { return locator }
            let opened = try session.library.flatMap { try EditedLocator.open(session.package, library: $0) } ?? CompositeLocator.open(session.package)
            locator = .some(opened)
            return opened
        }

        /// After an edit: the data and the locator are read again.
        func dataChanged() {
            session.reloadData()
            for map in maps.values { map.dataChanged() }
            locator = nil
        }
    }

    private let state: Mutex<State>
    /// Base map readers by map number and base map index.
    private let backdrops = Mutex<[String: BackdropFiles]>([:])

    convenience init(key: String, path: String, library: DeviceLibrary?) throws {
        try self.init(key: key, session: try MapSession(path: path, library: library))
    }

    /// An opened package (read in place from anywhere), with nothing kept per device.
    public convenience init(key: String, package: MobileMapPackage) throws {
        try self.init(key: key, session: try MapSession(package: package))
    }

    init(key: String, session: sending MapSession) throws {
        self.key = key
        path = session.package.path
        _ = try session.package.expirationNotice()
        guid = session.package.manifest.guid
        mapCount = session.maps.count
        state = Mutex(State(session: session))
    }

    /// How many maps the package has (numbered from 1): kept, so asking never waits for the
    /// session a tile is being made with.
    public let mapCount: Int

    /// Map `number`'s MapLibre style (`MapStyle`): its URLs are paths under `base` (the map's
    /// address: `BASE/basemaps/B/tiles/...`, `BASE/layers/ID/tiles/...`) and, for feature
    /// labels without a base map's fonts, `glyphs`.
    public func style(map number: Int, base: String, glyphs: String) throws -> JSONValue {
        try withSession { state in
            .object(try MapStyle.style(try state.map(number), host: self, state: state, number: number, base: base, glyphs: glyphs))
        }
    }

    /// Where map `number` opens, as `[west, south, east, north]` in degrees for a view of
    /// `width` by `height` pixels; nil when it cannot be said.
    public func initialBounds(map number: Int, width: Int, height: Int) throws -> JSONValue? {
        try withSession { state in
            let map = try state.map(number)
            guard let view = try? map.initialView(width: width, height: height) else { return nil }
            return try? Self.lonLatBounds(view.extent, map: map)
        }
    }

    /// A box of the map's spatial reference in degrees.
    static func lonLatBounds(_ box: BoundingBox, map: ViewerMap) throws -> JSONValue {
        let a = try map.toLongitudeLatitude(Position(x: box.minX, y: box.minY)), b = try map.toLongitudeLatitude(Position(x: box.maxX, y: box.maxY))
        return .array([.double(min(a.x, b.x)), .double(min(a.y, b.y)), .double(max(a.x, b.x)), .double(max(a.y, b.y))])
    }

    /// A tile's address as URLs give it, `Z/X/Y` with `Y` as `Y.pbf` or `Y`.
    public static func tile(z zText: String, x xText: String, y: String) throws -> TileCoordinate {
        var yText = y
        if yText.hasSuffix(".pbf") { yText.removeLast(4) }
        guard let z = Int(zText), let x = Int(xText), let y = Int(yText), (0...24).contains(z), x >= 0, y >= 0, x < 1 << z, y < 1 << z
        else { throw WebError.badRequest("a tile is /Z/X/Y.pbf with 0 <= X, Y < 2^Z and Z at most 24", kind: "invalidTile") }
        return TileCoordinate(z: z, x: x, y: y)
    }

    /// A tile of map `number`'s `index`-th tiled base map; nil or empty where it has none.
    public func baseMapTile(map number: Int, index: Int, tile: TileCoordinate) throws -> [UInt8]? {
        try backdrop(map: number, index: index).tile(tile)
    }

    /// A resource of a base map (`styles/root.json`, sprites, `fonts/STACK/RANGE.pbf`); glyphs
    /// of a font the package does not ship are drawn from the installed fonts, since MapLibre
    /// fails a whole tile whose labels lack them. Nil when there is no such resource.
    public func baseMapResource(map number: Int, index: Int, path: String) throws -> [UInt8]? {
        try backdrop(map: number, index: index).package.resource(path) ?? FallbackGlyphs.shared.range(forPath: path)
    }

    /// Glyphs for feature labels on a map without a vector base map, from the installed fonts.
    public static func glyphs(stack: String, range: String) -> [UInt8]? {
        FallbackGlyphs.shared.range(forPath: "fonts/\(stack)/\(range)")
    }

    /// A tile of feature layer `layer` of map `number`, made from the data as it is now.
    public func featureTile(map number: Int, layer: String, tile: TileCoordinate) throws -> [UInt8] {
        try withSession { state in
            let map = try state.map(number)
            return try map.featureTile(try map.layer(named: layer), tile: tile)
        }
    }

    /// The labels map `number`'s feature tiles carry, layer by layer: each label's tile
    /// attribute and its class (for a page that draws the layers from elsewhere and makes
    /// the labels' text itself).
    public func featureLabels(map number: Int) throws -> [(layer: String, attribute: String, labelClass: LabelClass)] {
        try withSession { state in
            let map = try state.map(number)
            return map.layers.filter(\.isFeatureLayer).flatMap { layer in
                ((try? map.tileLayerInfo(layer))?.labels ?? []).map { (layer.id, $0.attribute, $0.labelClass) }
            }
        }
    }

    /// Marks a sync as started; false when one is under way.
    func beginSync() -> Bool {
        syncing.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged
    }

    func endSync() {
        syncing.store(false, ordering: .sequentiallyConsistent)
    }

    /// Runs `body` with the package's viewer state, alone.
    func withSession<T: Sendable>(_ body: (State) throws -> T) throws -> T {
        try state.withLock { state in try body(state) }
    }

    /// The map's base maps that are tile packages in the package, vector (`.vtpk`) and raster
    /// (`.tpkx`), in the map's order: their index is the `B` of their URLs.
    static func tiledBaseMaps(_ map: ViewerMap) -> [ViewerLayer] {
        map.baseMapLayers.filter { $0.type == "VectorTileLayer" || $0.type == "ArcGISTiledMapServiceLayer" }
    }

    /// The files of the map's `index`-th tiled base map, opened once; `state` when the caller
    /// already holds the session.
    func backdrop(map: Int, index: Int, state: State? = nil) throws -> BackdropFiles {
        let key = "\(map)/\(index)"
        if let open = backdrops.withLock({ $0[key] }) { return open }
        let open = { (state: State) throws -> BackdropFiles in
            let viewerMap = try state.map(map)
            let layers = Self.tiledBaseMaps(viewerMap)
            guard layers.indices.contains(index) else { throw WebError.notFound("map \(map) has no tiled base map \(index)") }
            let package = state.session.package
            guard let dataPath = layers[index].definition.dataPath, let entry = package.entry(for: dataPath, mapEntry: viewerMap.entry) else {
                throw WebError.notFound("the base map '\(layers[index].title)' names no tile package in the package")
            }
            return try BackdropFiles(package: try package.tilePackage(entry))
        }
        let files = try state.map(open) ?? withSession(open)
        return backdrops.withLock { open in
            if let raced = open[key] { return raced }
            open[key] = files
            return files
        }
    }
}
