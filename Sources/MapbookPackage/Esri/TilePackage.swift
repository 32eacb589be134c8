import MapbookSupport

/// A tile package read in place: a vector tile package (`.vtpk`, `p12/root.json`) or a
/// compact tile package (`.tpkx`, `root.json`), both with Compact Cache V2 bundles.
///
/// Works on a standalone file and on a package stored inside a `.mmpk`.
public struct TilePackage: Sendable {
    public enum Kind: String, Sendable {
        case vectorTilePackage = "Vector Tile Package"
        case compactTilePackage = "Compact Tile Package"
    }

    /// One bundle file: the level and the top-left tile it covers.
    public struct Bundle: Sendable {
        public var level: Int
        public var row: Int
        public var column: Int
        public var entry: ZipEntry
    }

    /// Per-level statistics read from the bundle indexes.
    public struct Level: Sendable, Hashable {
        public var level: Int
        public var bundles: Int
        public var tiles: Int
        public var bytes: Int64
        public var largestTile: Int
        /// Features the tiler wrote and left out at this level, when the package records them
        /// (`metadata.json` `tiling`, written by mapbook).
        public var featuresKept: Int?
        public var featuresDropped: Int?

        /// Counts one more bundle of the level.
        public mutating func add(_ counts: CompactCacheBundle.Counts) {
            bundles += 1
            tiles += counts.tiles
            bytes += counts.bytes
            largestTile = max(largestTile, counts.largest)
        }

        public init(level: Int, bundles: Int = 0, tiles: Int = 0, bytes: Int64 = 0, largestTile: Int = 0, featuresKept: Int? = nil, featuresDropped: Int? = nil) {
            self.level = level
            self.bundles = bundles
            self.tiles = tiles
            self.bytes = bytes
            self.largestTile = largestTile
            self.featuresKept = featuresKept
            self.featuresDropped = featuresDropped
        }
    }

    public let archive: ZipArchive
    public let kind: Kind
    /// The entry holding `root.json`.
    public let rootEntryName: String
    public let root: JSONObject
    /// The folder holding `Lnn/` bundle folders.
    public let tileFolder: String
    public let bundles: [Bundle]

    public init(archive: ZipArchive) throws(PackageFormatError) {
        self.archive = archive
        let path = archive.displayPath
        // A vtpk keeps root.json in a pNN folder; a tpkx at the top.
        let candidates = archive.entries.map(\.name).filter { name in
            let parts = name.split(separator: "/")
            return parts.last == "root.json"
                && (parts.count == 1 || (parts.count == 2 && parts[0].first == "p" && Int(parts[0].dropFirst()) != nil))
        }
        guard let rootName = candidates.sorted(by: { $0.count > $1.count }).first, let rootEntry = archive.entry(named: rootName) else {
            throw PackageFormatError(kind: .wrongFormat, path: path, message: "no root.json (neither pNN/root.json as in a .vtpk nor root.json as in a .tpkx): not a tile package")
        }
        let rootBytes: [UInt8]
        do {
            rootBytes = try archive.read(rootEntry, limit: 64 << 20)
        } catch {
            throw PackageFormatError(kind: .archive(error.kind), path: "\(path)[\(rootName)]", message: "\(error)")
        }
        guard let root = (try? JSONParser.parse(rootBytes))?.objectValue else {
            throw PackageFormatError(kind: .invalidValue, path: "\(path)[\(rootName)]", message: "not a JSON object")
        }
        self.root = root
        rootEntryName = rootName
        let folder = rootName.contains("/") ? String(rootName.split(separator: "/")[0]) : ""
        kind = (root.string("type") == "indexedVector" || folder.hasPrefix("p")) && root.object("tileImageInfo") == nil
            ? .vectorTilePackage : .compactTilePackage
        var tiles = folder.isEmpty ? "tile" : "\(folder)/tile"
        if var declared = root.string("tileBundlesPath") {
            while declared.hasPrefix("./") { declared.removeFirst(2) }
            tiles = folder.isEmpty ? declared : "\(folder)/\(declared)"
        }
        tileFolder = tiles
        var bundles: [Bundle] = []
        let prefix = tiles + "/L"
        for entry in archive.entries where entry.name.hasPrefix(prefix) && entry.name.hasSuffix(".bundle") {
            let rest = entry.name.dropFirst(prefix.count)
            guard let slash = rest.firstIndex(of: "/"), let level = Int(rest[..<slash]),
                let parsed = CompactCacheBundle.parseName(entry.name)
            else { continue }
            bundles.append(Bundle(level: level, row: parsed.row, column: parsed.column, entry: entry))
        }
        self.bundles = bundles.sorted { ($0.level, $0.row, $0.column) < ($1.level, $1.row, $1.column) }
    }

    /// The package's name from root.json.
    public var name: String? { root.string("name") }

    public var tileInfo: JSONObject? { root.object("tileInfo") }

    /// Tile width in pixels.
    public var tileSize: Int? { tileInfo?.int("cols") }

    public var levelsOfDetail: Int { tileInfo?.array("lods")?.count ?? 0 }

    public var fullExtent: Envelope? { root.model("fullExtent") }

    /// The tile format: `pbf` for vector tiles, `PNG`/`JPEG`/`MIXED` for images.
    public var format: String? {
        root.object("tileImageInfo")?.string("format") ?? tileInfo?.string("format")
    }

    /// Reads one bundle's header and index.
    public func index(of bundle: Bundle) throws(PackageFormatError) -> CompactCacheBundle {
        try CompactCacheBundle(range: try range(of: bundle), path: path(of: bundle))
    }

    private func path(of bundle: Bundle) -> String { "\(archive.displayPath)[\(bundle.entry.name)]" }

    /// Where a stored bundle's bytes lie in the package file.
    private func range(of bundle: Bundle) throws(PackageFormatError) -> ByteRange {
        guard bundle.entry.method == .stored else {
            // Reading a compressed bundle would mean inflating all of it, sized by what it claims.
            throw PackageFormatError(kind: .notStored, path: path(of: bundle), message: "the bundle is \(bundle.entry.method), not stored; tiles are read in place only from stored bundles")
        }
        do {
            return try archive.dataRange(of: bundle.entry)
        } catch {
            throw PackageFormatError(kind: .archive(error.kind), path: path(of: bundle), message: error.message)
        }
    }

    /// Tiles and bytes per level, from every bundle's index.
    public func levels() throws(PackageFormatError) -> [Level] {
        // Arrays, not dictionaries keyed by level: the first `[Int: …]` of a process makes the
        // runtime look up `Int: Hashable` through every conformance record of the executable
        // (about 0.1 ms of `inspect`). Bundles are sorted by level, so a level is a run of them.
        var levels: [Level] = []
        for bundle in bundles {
            let counts = try CompactCacheBundle.counts(range: try range(of: bundle), path: path(of: bundle))
            if levels.last?.level != bundle.level { levels.append(Level(level: bundle.level)) }
            levels[levels.count - 1].add(counts)
        }
        for zoom in tilingStatistics() {
            guard let i = levels.firstIndex(where: { $0.level == zoom.zoom }) else { continue }
            levels[i].featuresKept = zoom.kept
            levels[i].featuresDropped = zoom.dropped
        }
        return levels
    }

    /// Per-zoom feature counts from `metadata.json` beside root.json (mapbook writes them under
    /// `tiling`; Esri's packages have none), in the file's order. Empty when absent or unreadable.
    public func tilingStatistics() -> [(zoom: Int, kept: Int, dropped: Int)] {
        let folder = rootEntryName.contains("/") ? String(rootEntryName.split(separator: "/")[0]) + "/" : ""
        guard let entry = archive.entry(named: folder + "metadata.json"),
            let bytes = try? archive.read(entry, limit: 16 << 20),
            let zooms = (try? JSONParser.parse(bytes))?.objectValue?.array("tiling")
        else { return [] }
        return zooms.compactMap { zoom in
            guard let o = zoom.objectValue, let z = o.int("zoom"), let kept = o.int("featuresKept"), let dropped = o.int("featuresDropped") else { return nil }
            return (z, kept, dropped)
        }
    }
}
