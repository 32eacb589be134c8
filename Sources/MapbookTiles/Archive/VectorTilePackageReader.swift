import MapbookPackage
import MapbookSupport

/// Reads the tiles of a vector tile package in place: a `.vtpk` file, or one stored inside a
/// `.mmpk` (DESIGN.md section 5). Tiles are found through the Compact Cache V2 bundle indexes
/// and read by offset; nothing is extracted.
///
/// Serves Esri's own packages as well as ours: their tiles are returned as stored (gzip MVT,
/// layer extent 32768 in Esri's basemaps, which is the decoder's business). Bundle indexes are
/// read when a bundle is first used and kept. Not Sendable: use from one task at a time.
public final class VectorTilePackageReader: ReadableTileArchive {
    public let package: TilePackage
    public let path: String
    public let metadata: TileArchiveMetadata
    /// Bundles by level and top-left tile (`TileCoordinate(z: level, x: column, y: row).packed`).
    private let bundles: [UInt64: TilePackage.Bundle]
    private var opened: [UInt64: (range: ByteRange, index: CompactCacheBundle)] = [:]

    /// Reads the package's description and lists its bundles. With `raster`, reads a compact
    /// tile package (`.tpkx`) instead, whose bundles hold image tiles the same way (on the Web
    /// Mercator tiling scheme a level is a zoom, as in a vector tile package).
    public init(package: TilePackage, raster: Bool = false) throws(TileArchiveError) {
        self.package = package
        path = package.archive.displayPath
        guard package.kind == (raster ? .compactTilePackage : .vectorTilePackage) else {
            throw TileArchiveError(kind: .wrongFormat, operation: "read", path: path, message: "it is a \(package.kind.rawValue), not a \(raster ? "compact tile package" : "vector tile package")")
        }
        var bundles: [UInt64: TilePackage.Bundle] = [:]
        for bundle in package.bundles {
            bundles[TileCoordinate(z: bundle.level, x: bundle.column, y: bundle.row).packed] = bundle
        }
        self.bundles = bundles
        metadata = Self.readMetadata(package)
    }

    /// Opens a `.vtpk` (a file, or a folder it was unpacked into), or the vector tile package
    /// inside a `.mmpk`: the entry named `entry`, else the only (or first) `.vtpk` it holds.
    public convenience init(path: String, entry: String? = nil) throws(TileArchiveError) {
        let archive: ZipArchive
        do {
            archive = FileSystem.kind(path) == .directory ? try ZipArchive(folder: path) : try ZipArchive(path: path)
        } catch {
            throw TileArchiveError(kind: error.kind, operation: "open", path: path, message: error.message)
        }
        do {
            if archive.entries.contains(where: { !$0.name.contains("/") && $0.name.hasSuffix(".info") }) {
                let mmpk = try MobileMapPackage(archive: archive)
                let candidates = Self.vectorTilePackageEntries(in: mmpk)
                guard !candidates.isEmpty else {
                    throw TileArchiveError(kind: .missingEntry, operation: "read tiles from", path: path, message: "the package holds no vector tile package (.vtpk)")
                }
                let chosen: ZipEntry
                if let entry {
                    guard let match = candidates.first(where: { $0.name == entry || FileSystem.lastComponent($0.name) == entry || FileSystem.lastComponent($0.name) == entry + ".vtpk" }) else {
                        throw TileArchiveError(kind: .missingEntry, operation: "read tiles from", path: path, message: "no vector tile package '\(entry)'; it holds \(candidates.map(\.name).joined(separator: ", "))")
                    }
                    chosen = match
                } else {
                    chosen = candidates[0]
                }
                try self.init(package: try mmpk.tilePackage(chosen))
            } else {
                try self.init(package: try TilePackage(archive: archive))
            }
        } catch {
            throw TileArchiveError(error, operation: "read", path: path)
        }
    }

    /// The `.vtpk` entries of a mobile map package, in archive order.
    public static func vectorTilePackageEntries(in package: MobileMapPackage) -> [ZipEntry] {
        package.archive.entries.filter { $0.name.lowercased().hasSuffix(".vtpk") }
    }

    public func tile(at coordinate: TileCoordinate) throws(TileArchiveError) -> [UInt8]? {
        guard coordinate.isValid, coordinate.z <= TileCoordinate.maximumPackedZoom else { return nil }
        let packet = CompactCacheBundle.packetSize
        let key = TileCoordinate(z: coordinate.z, x: coordinate.x / packet * packet, y: coordinate.y / packet * packet).packed
        guard bundles[key] != nil else { return nil }
        let (range, index) = try open(key)
        guard let (offset, size) = index.tile(row: coordinate.y % packet, column: coordinate.x % packet) else { return nil }
        guard offset >= 0, offset + Int64(size) <= range.length else {
            throw TileArchiveError(kind: .damaged, operation: "read", path: index.path, message: "tile \(coordinate) (\(size) bytes at \(offset)) lies outside the bundle (\(range.length) bytes)")
        }
        do {
            return try range.read(at: offset, count: size)
        } catch {
            throw TileArchiveError(kind: error.kind, operation: "read", path: index.path, message: error.message)
        }
    }

    public func tileCoordinates() throws(TileArchiveError) -> [TileCoordinate] {
        var coordinates: [TileCoordinate] = []
        let packet = CompactCacheBundle.packetSize
        for key in bundles.keys {
            let (_, index) = try open(key)
            let origin = TileCoordinate(packed: key)
            for slot in 0..<index.records.count where index.records[slot] >> 40 != 0 {
                coordinates.append(TileCoordinate(z: origin.z, x: origin.x + slot % packet, y: origin.y + slot / packet))
            }
        }
        return coordinates.sorted()
    }

    private func open(_ key: UInt64) throws(TileArchiveError) -> (range: ByteRange, index: CompactCacheBundle) {
        if let cached = opened[key] { return cached }
        let bundle = bundles[key]!
        let name = "\(path)[\(bundle.entry.name)]"
        do {
            let range = try package.archive.dataRange(of: bundle.entry)
            let index = try CompactCacheBundle(range: range, path: name)
            opened[key] = (range, index)
            return (range, index)
        } catch let error as ArchiveError {
            throw TileArchiveError(kind: error.kind, operation: "read", path: name, message: error.message)
        } catch {
            throw TileArchiveError(error, operation: "read", path: name)
        }
    }

    /// What root.json, metadata.json and the style say about the tile set.
    static func readMetadata(_ package: TilePackage) -> TileArchiveMetadata {
        let root = package.root
        let folder = package.rootEntryName.contains("/") ? String(package.rootEntryName.split(separator: "/")[0]) + "/" : ""
        func json(_ name: String) -> JSONObject? {
            guard let entry = package.archive.entry(named: folder + name),
                let bytes = try? package.archive.read(entry, limit: 64 << 20)
            else { return nil }
            return (try? JSONParser.parse(bytes))?.objectValue
        }
        let levels = package.bundles.map(\.level)
        let minZoom = levels.min() ?? root.int("minLOD") ?? 0
        let maxZoom = levels.max() ?? root.int("maxLOD") ?? minZoom

        var bounds: BoundingBox?
        if let extent: Envelope = root.model("fullExtent"), let box = extent.bounds {
            if extent.spatialReference?.isGeographic == true {
                bounds = box
            } else if extent.spatialReference?.isWebMercator ?? true {
                bounds = WebMercator.unproject(box)
            }
        }

        // Layers: metadata.json's vector_layers (bare or in its "json" string), else the
        // source layers the style draws.
        var layers: [VectorLayerInfo] = []
        let meta = json("metadata.json")
        var layerDocument = meta
        if meta?["vector_layers"] == nil, let text = meta?.string("json") {
            layerDocument = (try? JSONParser.parse(text))?.objectValue
        }
        if let document = layerDocument, document["vector_layers"] != nil {
            layers = TileArchiveMetadata.layers(fromVectorLayers: document["vector_layers"])
            TileArchiveMetadata.applyTileStats(document.object("tilestats"), to: &layers)
        } else {
            let stylePath = (root.string("defaultStyles") ?? "resources/styles") + "/root.json"
            var seen = Set<String>()
            for layer in (json(stylePath)?.array("layers") ?? []).compactMap(\.objectValue) {
                guard let name = layer.string("source-layer"), seen.insert(name).inserted else { continue }
                layers.append(VectorLayerInfo(id: name))
            }
        }

        let compression: TileCompression
        switch root.object("resourceInfo")?.string("tileCompression")?.lowercased() {
        case "gzip"?: compression = .gzip
        case "none"?: compression = .none
        default: compression = .unknown
        }
        return TileArchiveMetadata(
            name: root.string("name") ?? FileSystem.lastComponent(package.archive.displayPath),
            description: meta?.string("description") ?? "",
            attribution: root.string("copyrightText") ?? meta?.string("attribution") ?? "",
            format: .mvt, tileCompression: compression, bounds: bounds,
            minZoom: minZoom, maxZoom: maxZoom, layers: layers)
    }
}
