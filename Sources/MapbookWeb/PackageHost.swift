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
final class PackageHost: Sendable {
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
            guard (1...session.maps.count).contains(number) else {
                throw ViewerError(
                    kind: .unknownMap, path: session.package.path, message: "there is no map \(number): the package has \(session.maps.count)",
                    choices: session.maps.enumerated().map { "\($0.offset + 1). \($0.element.name)" })
            }
            let map = try session.map(named: String(number))
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

    init(key: String, path: String, library: DeviceLibrary?) throws {
        self.key = key
        self.path = path
        let session = try MapSession(path: path, library: library)
        _ = try session.package.expirationNotice()
        guid = session.package.manifest.guid
        state = Mutex(State(session: session))
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
