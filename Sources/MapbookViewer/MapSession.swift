import MapbookData
import MapbookLibrary
import MapbookPackage
import MapbookSupport

/// A package opened for viewing: its maps, each with layers, bookmarks and a starting view,
/// read in place (nothing is extracted). Ours or Esri's, as far as the formats are public.
///
/// The databases the maps' layers read are opened once per session and shared by the layers
/// that name them. Not for use from several threads at once.
public final class MapSession {
    public let package: MobileMapPackage
    /// The package's GUID, which keys what the device library keeps for it; its path when the
    /// manifest has none (a package without a GUID keeps its state only under that name).
    public let packageKey: String
    /// The maps, in the manifest's order.
    public let maps: [MapSummary]
    /// The device library keeping layer visibility; nil to keep nothing.
    public let library: DeviceLibrary?
    var databases: [String: SQLiteDatabase] = [:]

    /// One map of the package, before it is opened.
    public struct MapSummary: Sendable {
        public let entry: ZipEntry
        public let map: MobileMap
        public var name: String { map.displayName }
        /// The key the device library keeps the map's state under: its item id, else its name.
        public var key: String { map.item.original.string("id") ?? map.item.guid ?? map.item.name ?? entry.name }
    }

    /// Opens the package at `path`; with `library`, layer visibility the user chose on this
    /// device applies and changes are kept there.
    public convenience init(path: String, library: DeviceLibrary? = nil) throws(ViewerError) {
        let package: MobileMapPackage
        do {
            // A signed package changed after signing is refused here, for every viewer.
            package = try (library ?? DeviceLibrary.fromEnvironment()).verifiedFiles.open(path)
        } catch {
            throw ViewerError(PackageFormatError(error, path: path))
        }
        try self.init(package: package, library: library)
    }

    /// Opens an opened package's maps (one read in place from elsewhere: the portal's item
    /// pages read a package in a bucket by ranged requests).
    public init(package: MobileMapPackage, library: DeviceLibrary? = nil) throws(ViewerError) {
        self.package = package
        packageKey = package.manifest.guid.flatMap { $0.isEmpty ? nil : $0 } ?? package.path
        self.library = library
        var maps: [MapSummary] = []
        for entry in package.mapEntries {
            do {
                maps.append(MapSummary(entry: entry, map: try package.map(entry)))
            } catch {
                throw ViewerError(error)
            }
        }
        guard !maps.isEmpty else {
            throw ViewerError(kind: .noMaps, path: package.path, message: "the package has no map (.mmap) to show")
        }
        self.maps = maps
    }

    /// The map named `name` (its title or name, any case; or its number from 1), or the first
    /// when `name` is nil.
    public func map(named name: String?) throws(ViewerError) -> ViewerMap {
        guard let name else { return try open(maps[0]) }
        let lowered = name.lowercased()
        let found = maps.first { $0.name == name }
            ?? maps.first { $0.name.lowercased() == lowered || $0.map.item.name?.lowercased() == lowered }
            ?? Int(name).flatMap { $0 >= 1 && $0 <= maps.count ? maps[$0 - 1] : nil }
        guard let found else { throw unknownMap(name, byNumber: Int(name) != nil) }
        return try open(found)
    }

    /// Map `number` (from 1, in the package's order), whatever the maps are named: a URL's
    /// number is never a title ("2" may name the first map).
    public func map(number: Int) throws(ViewerError) -> ViewerMap {
        guard number >= 1, number <= maps.count else { throw unknownMap(String(number), byNumber: true) }
        return try open(maps[number - 1])
    }

    /// The refusal of map `asked`, which is not here, listing those that are; asked for by
    /// number, it says how they are numbered.
    private func unknownMap(_ asked: String, byNumber: Bool) -> ViewerError {
        let message = byNumber
            ? "there is no map \(asked): the package has \(maps.count) map\(maps.count == 1 ? "" : "s"), numbered from 1" : "no map named '\(asked)'"
        return ViewerError(kind: .unknownMap, path: package.path, message: message, choices: maps.enumerated().map { "\($0.offset + 1). \($0.element.name)" })
    }

    func open(_ summary: MapSummary) throws(ViewerError) -> ViewerMap {
        var state = MapViewerState()
        if let library {
            do {
                state = try library.viewerState(package: packageKey, map: summary.key)
            } catch {
                // What the device kept cannot be read: the map still opens as it was made.
                state = MapViewerState()
            }
        }
        return ViewerMap(session: self, summary: summary, state: state)
    }

    /// Forgets the databases opened so far: after an edit, the next read opens this device's
    /// working copy afresh (the first edit makes it; reads assume a file does not change
    /// while open).
    public func reloadData() {
        for database in databases.values { try? database.close() }
        databases = [:]
    }

    /// The database a layer's data path names, opened once per session: the package's
    /// `data.gpkg`, or this device's working copy of it when the package has been edited here
    /// (`mapbook edit`), so every view shows the edited state.
    func database(for entry: ZipEntry) throws -> SQLiteDatabase {
        if let open = databases[entry.name] { return open }
        let edited = entry.name.hasSuffix("data.gpkg") ? package.manifest.guid.flatMap { library?.workingCopyData(packageGUID: $0, dataEntry: entry) } : nil
        let database = try edited.map { try SQLiteDatabase(readOnlyPath: $0) } ?? package.database(entry)
        databases[entry.name] = database
        return database
    }
}
