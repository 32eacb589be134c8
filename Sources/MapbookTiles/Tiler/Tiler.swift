#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import MapbookData
import MapbookPackage
import MapbookSupport
import Synchronization

/// Cuts features into Mapbox Vector Tiles on the 512 px Web Mercator grid of DESIGN 3.4.
///
/// Add layers and their features (WGS84 longitude/latitude), then `build` writes every tile
/// from the minimum to the maximum zoom into a sink, zoom by zoom, in row-major order within a
/// zoom. At each zoom, features are assigned to the tiles their bounds (plus the buffer)
/// touch, copies shifted by a world width carry features across the antimeridian, and each tile
/// is clipped, simplified and encoded on every core (`TileBuilder`). Dense points are thinned
/// at lower zooms by a pixel grid (`Tiler+Thinning`); a tile past the byte or feature limit is
/// rebuilt with more thinning and simplification, and the report says so.
///
/// Memory is bounded by `options.memory`, whatever the input's size (as tippecanoe and
/// planetiler do it): each feature is written as it is added to a temporary file
/// (`TilerRecord`), and the tiler keeps one byte a feature (a point's first zoom). Each zoom's
/// assignments of features to tiles, and the points sorted for thinning, go through an
/// `ExternalSorter`, in runs on disk when they are more than its share of the memory. The
/// assignments come from a scan of the mapped feature file (its pages given back as it goes);
/// each tile's records are then read into its builder's memory (`TileFeatures`). The tiles are
/// the same whatever the setting.
///
/// Not Sendable: features are added from one task; `build` then only reads them.
public final class Tiler {
    public let options: TilerOptions
    var layers: [TilerLayerStore] = []
    /// The features, as records; made when the first is added.
    private var spool: TilerWorkFile?
    /// Records not yet written to the spool (written a megabyte at a time).
    private var pending: [UInt8] = []
    private var scratchVertices: [SIMD2<Double>] = []
    private var scratchParts: [UInt32] = []
    private var scratchTags: [(Int, VectorTile.Value)] = []
    /// Every point by layer and place on the map (Morton order), for thinning and for the guess.
    private var points: ExternalSorter<PointEntry>?
    /// Each feature's first zoom, by ordinal: set by thinning for points, 0 for the others.
    var firstZooms: [UInt8] = []

    public private(set) var featureCount = 0
    /// Whether the last build sorted anything in runs on disk (more than its memory held).
    private(set) var sortedOnDisk = false

    public init(options: TilerOptions = TilerOptions()) {
        self.options = options
    }

    /// The folder the temporary files go to: the options', else `TMPDIR`, else /tmp.
    var workDirectory: String {
        options.workDirectory ?? getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    private var guessedMaxZoom: Int?

    /// The zooms `build` writes: the options' range, the maximum guessed from the features
    /// when the options give none (computed once: it reads every point in order on the map).
    public func zoomRange() throws -> ClosedRange<Int> {
        if let maxZoom = options.maxZoom { return options.minZoom...max(maxZoom, options.minZoom) }
        if guessedMaxZoom == nil { guessedMaxZoom = try guessMaxZoom() }
        return options.minZoom...max(guessedMaxZoom!, options.minZoom)
    }

    /// The extent of every feature added, in WGS84 degrees; nil when there are none.
    public var bounds: BoundingBox? {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for store in layers {
            minX = min(minX, store.minX); maxX = max(maxX, store.maxX)
            minY = min(minY, store.minY); maxY = max(maxY, store.maxY)
        }
        guard minX <= maxX else { return nil }
        let width = 2 * WebMercator.halfWorld
        let box = WebMercator.unproject(BoundingBox(
            minX: minX * width - WebMercator.halfWorld, minY: WebMercator.halfWorld - maxY * width,
            maxX: maxX * width - WebMercator.halfWorld, maxY: WebMercator.halfWorld - minY * width))
        return BoundingBox(minX: max(box.minX, -180), minY: box.minY, maxX: min(box.maxX, 180), maxY: box.maxY)
    }

    /// The kind most of a layer's features are, for describing a layer of mixed geometry.
    public func dominantGeometry(layer: Int) -> VectorLayerInfo.Geometry? {
        let counts = layers[layer].kindCounts
        guard let best = counts.indices.max(by: { counts[$0] < counts[$1] }), counts[best] > 0 else { return nil }
        return [.point, .line, .polygon][best]
    }

    /// Adds a layer; features are then added to it by the returned index.
    public func addLayer(_ spec: TilerLayer) -> Int {
        let store = TilerLayerStore(spec: spec, index: layers.count, minZoom: spec.minZoom ?? 0, maxZoom: spec.maxZoom ?? 30)
        layers.append(store)
        return store.index
    }

    /// Adds a feature in WGS84 longitude/latitude with values in the order of the layer's
    /// `fields` (nulls and blobs are left out of the tiles). Returns false when the geometry is
    /// empty or a collection of mixed kinds, which MVT cannot hold as one feature. Throws
    /// when the temporary feature file cannot be written.
    @discardableResult
    public func add(layer: Int, geometry: Geometry, values: [FieldValue] = [], id: UInt64? = nil) throws -> Bool {
        let store = layers[layer]
        scratchVertices.removeAll(keepingCapacity: true)
        scratchParts.removeAll(keepingCapacity: true)
        var kind: TilerRecord.Kind
        func append(_ positions: [Position], polygonStart: Bool = false) {
            for p in positions { scratchVertices.append(Self.world(longitude: p.x, latitude: p.y)) }
            scratchParts.append(UInt32(positions.count) | (polygonStart ? TilerRecord.polygonStart : 0))
        }
        func appendPolygon(_ rings: [[Position]]) {
            for (i, ring) in rings.enumerated() {
                // Stored open: the tiler closes rings itself.
                var open = ring
                if open.count > 1, open[0].x == open[open.count - 1].x, open[0].y == open[open.count - 1].y { open.removeLast() }
                guard open.count >= 3 || i > 0 else { return }
                if open.count >= 3 { append(open, polygonStart: i == 0) }
            }
        }
        switch geometry.shape {
        case .point(let p): kind = .point; append([p])
        case .multiPoint(let a): kind = .point; append(a)
        case .lineString(let a): kind = .line; append(a)
        case .multiLineString(let lines): kind = .line; lines.forEach { append($0) }
        case .polygon(let rings): kind = .polygon; appendPolygon(rings)
        case .multiPolygon(let polygons): kind = .polygon; polygons.forEach(appendPolygon)
        case .geometryCollection: return false
        }
        // A record's length is 32 bits: a feature of more than 200 million vertices is skipped.
        guard !scratchVertices.isEmpty, scratchVertices.count < 200_000_000 else { return false }
        var low = SIMD2(Double.infinity, Double.infinity), high = -low
        for v in scratchVertices {
            low = pointwiseMin(low, v)
            high = pointwiseMax(high, v)
        }
        var size = 0.0
        var v = 0
        for part in scratchParts {
            let count = Int(part & ~TilerRecord.polygonStart)
            let points = scratchVertices[v..<(v + count)]
            if kind == .polygon {
                // Exterior rings add their area, holes take theirs away, whatever their winding.
                let area = abs(TileSimplifier.doubleArea(Array(points))) / 2
                size += part & TilerRecord.polygonStart != 0 ? area : -area
            }
            guard kind != .point else { break }
            var previous = points.first!
            for p in points.dropFirst() {
                let d = p - previous
                let length = (d.x * d.x + d.y * d.y).squareRoot()
                if kind == .line { size += length }
                // For the guess of the maximum zoom: the mean segment length, taken as it comes.
                if length > 0 { store.segmentLogSum += log(length); store.segmentCount += 1 }
                previous = p
            }
            v += count
        }
        scratchTags.removeAll(keepingCapacity: true)
        for (key, value) in values.enumerated() where key < store.spec.fields.count {
            if let tileValue = FeatureTileEncoder.value(value) { scratchTags.append((key, tileValue)) }
        }
        let ordinal = featureCount
        TilerRecord.append(
            to: &pending, layer: layer, ordinal: ordinal, kind: kind, id: id, bounds: (low, high), size: abs(size),
            parts: scratchParts[...], vertices: scratchVertices[...], tags: scratchTags)
        if pending.count >= 1 << 20 { try flush() }
        if kind == .point {
            if points == nil {
                points = ExternalSorter(memory: options.memory / 8, directory: workDirectory) { ($0.layer, $0.key, $0.ordinal) < ($1.layer, $1.key, $1.ordinal) }
            }
            var x = low.x.truncatingRemainder(dividingBy: 1)
            if x < 0 { x += 1 }
            try points!.append(PointEntry(key: Self.morton(x: x, y: low.y), layer: UInt32(layer), ordinal: UInt32(ordinal)))
        }
        featureCount += 1
        store.kindCounts[Int(kind.rawValue)] += 1
        store.minX = min(store.minX, low.x); store.minY = min(store.minY, low.y)
        store.maxX = max(store.maxX, high.x); store.maxY = max(store.maxY, high.y)
        return true
    }

    /// Writes the pending records to the spool file.
    private func flush() throws {
        guard !pending.isEmpty else { return }
        if spool == nil { spool = try TilerWorkFile(in: workDirectory, purpose: "feature") }
        try pending.withUnsafeBytes { bytes in try spool!.append(bytes) }
        pending.removeAll(keepingCapacity: true)
    }

    /// A point by layer and place: its Morton key (32 bits an axis) and ordinal.
    struct PointEntry {
        var key: UInt64
        var layer: UInt32
        var ordinal: UInt32
    }

    /// Calls `body` with every point, by layer, then place on the map (Morton order), then
    /// source order.
    func forEachPoint(_ body: (PointEntry) throws -> Void) throws {
        try points?.forEach(body)
    }

    /// x from 0 at 180°W to 1 at 180°E (beyond for longitudes past ±180), y from 0 at the
    /// north edge of Web Mercator to 1 at the south; latitudes clamped to ±85.0511°.
    static func world(longitude: Double, latitude: Double) -> SIMD2<Double> {
        let m = WebMercator.project(longitude: longitude, latitude: latitude)
        let width = 2 * WebMercator.halfWorld
        return SIMD2((m.x + WebMercator.halfWorld) / width, (WebMercator.halfWorld - m.y) / width)
    }

    /// Builds every tile and hands each, gzip-compressed, to `sink` in zoom, row, column order.
    public func build(_ sink: (TileCoordinate, [UInt8]) throws -> Void, zoomDone: ((TilerReport.Zoom) -> Void)? = nil) throws -> TilerReport {
        let guessed = options.maxZoom == nil
        let maxZoom = try zoomRange().upperBound
        let minZoom = options.minZoom
        try flush()
        let base = try spool?.map()
        for store in layers {
            store.minZoom = max(store.spec.minZoom ?? minZoom, minZoom)
            store.maxZoom = min(store.spec.maxZoom ?? maxZoom, maxZoom)
        }
        try thinPoints()
        sortedOnDisk = points?.spilled ?? false
        // Thinning was the points' last use.
        points = nil
        var report = TilerReport(minZoom: minZoom, maxZoom: maxZoom, maxZoomGuessed: guessed, zooms: [])
        guard let base, let spool else {
            for z in minZoom...maxZoom {
                report.zooms.append(TilerReport.Zoom(zoom: z))
                zoomDone?(report.zooms[report.zooms.count - 1])
            }
            return report
        }
        let sorter = ExternalSorter<Assignment>(memory: options.memory / 4, directory: workDirectory) {
            ($0.key, $0.layer, $0.offset, $0.column) < ($1.key, $1.layer, $1.offset, $1.column)
        }
        for z in minZoom...maxZoom {
            sorter.removeAll()
            try assign(zoom: z, base: base, spool: spool, to: sorter)
            if sorter.spilled { sortedOnDisk = true }
            report.zooms.append(try buildZoom(z, sorter, spool: spool, sink))
            zoomDone?(report.zooms[report.zooms.count - 1])
        }
        return report
    }

    /// One feature's presence in one tile: `column` is unwrapped (negative or past the last
    /// column for a copy across the antimeridian); `offset` is the feature's record.
    struct Assignment {
        var key: UInt64
        var offset: Int
        var layer: UInt32
        var column: Int32
        /// The record's length in bytes.
        var length: UInt32
    }

    /// Reads every record once, in file order, and gives the sorter each tile a feature's
    /// bounds (plus the buffer) touch at `z`. The pages read are given back as it goes.
    func assign(zoom z: Int, base: UnsafeRawPointer, spool: TilerWorkFile, to sorter: ExternalSorter<Assignment>) throws {
        let n = 1 << z
        let scale = Double(n)
        // Half a unit more than the buffer: a point that rounds onto the buffer's edge is in.
        let margin = (Double(options.buffer) + 0.5) / Double(options.extent)
        let size = Int(spool.size)
        let window = max(min(16 << 20, options.memory / 16), 1 << 20)
        var offset = 0, released = 0
        while offset < size {
            let f = TilerRecord(base: base + offset)
            let store = layers[f.layer]
            defer { offset += f.length }
            guard z >= store.minZoom, z <= store.maxZoom, Int(firstZooms[f.ordinal]) <= z else { continue }
            let c0 = max(Int((f.minX * scale - margin).rounded(.down)), -n)
            let c1 = min(Int((f.maxX * scale + margin).rounded(.down)), 2 * n - 1)
            let r0 = max(Int((f.minY * scale - margin).rounded(.down)), 0)
            let r1 = min(Int((f.maxY * scale + margin).rounded(.down)), n - 1)
            guard c0 <= c1, r0 <= r1 else { continue }
            for row in r0...r1 {
                for column in c0...c1 {
                    let wrapped = ((column % n) + n) % n
                    try sorter.append(Assignment(
                            key: UInt64(row) << 32 | UInt64(wrapped), offset: offset, layer: UInt32(f.layer), column: Int32(column), length: UInt32(f.length)))
                }
            }
            if offset - released >= window {
                spool.release(released..<offset)
                released = offset
            }
        }
        spool.release()
    }

    /// Builds the tiles of one zoom from its sorted assignments, a batch of tiles at a time on
    /// every core, and gives each to `sink` in order.
    func buildZoom(
        _ z: Int, _ sorter: ExternalSorter<Assignment>, spool: TilerWorkFile, _ sink: (TileCoordinate, [UInt8]) throws -> Void
    ) throws -> TilerReport.Zoom {
        var stats = TilerReport.Zoom(zoom: z)
        let threads = options.threads > 0 ? options.threads : max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1)
        let context = TileBuilder.Context(options: options, layers: layers.map(\.spec), file: spool)
        // A batch ends at 2,048 tiles or 262,144 assignments (less with little memory),
        // whichever comes first; one tile's assignments always stay together.
        let batchTiles = 2048
        let batchAssignments = max(min(options.memory / 8 / MemoryLayout<Assignment>.stride, 1 << 18), 1024)
        var batch: [Assignment] = []
        var groups: [Range<Int>] = []
        func buildBatch() throws {
            guard !groups.isEmpty else { return }
            let results = UnsafeMutableBufferPointer<TileBuilder.Result?>.allocate(capacity: groups.count)
            results.initialize(repeating: nil)
            defer { results.deinitialize(); results.deallocate() }
            let next = Atomic<Int>(0)
            // Each worker takes the next tile from a shared counter and writes only its slot.
            nonisolated(unsafe) let slots = results
            let tiles = groups
            batch.withUnsafeBufferPointer { all in
                nonisolated(unsafe) let all = all
                DispatchQueue.concurrentPerform(iterations: threads) { _ in
                    var builder = TileBuilder(context: context)
                    while true {
                        let i = next.add(1, ordering: .relaxed).oldValue
                        guard i < tiles.count else { break }
                        let range = tiles[i]
                        let key = all[range.lowerBound].key
                        let tile = TileCoordinate(z: z, x: Int(key & 0xFFFF_FFFF), y: Int(key >> 32))
                        slots[i] = builder.build(tile, UnsafeBufferPointer(rebasing: all[range]))
                    }
                }
            }
            for result in results {
                guard let result else { continue }
                if let failure = result.failure { throw failure }
                stats.featuresDropped += result.dropped
                stats.tinyPolygonsMerged += result.tinyMerged
                stats.polygonsResimplified += result.resimplified
                if !result.strategies.isEmpty {
                    stats.tilesOverLimit += 1
                    for s in result.strategies { stats.strategies[s, default: 0] += 1 }
                }
                guard let data = result.data else { continue }
                stats.tiles += 1
                stats.bytes += data.count
                stats.featuresKept += result.kept
                if data.count > stats.largestTile {
                    stats.largestTile = data.count
                    stats.largestTileAddress = result.tile
                }
                try sink(result.tile, data)
            }
            batch.removeAll(keepingCapacity: true)
            groups.removeAll(keepingCapacity: true)
        }
        try sorter.forEach { assignment in
            if let last = batch.last, last.key != assignment.key {
                groups.append((groups.last?.upperBound ?? 0)..<batch.count)
                if groups.count >= batchTiles || batch.count >= batchAssignments {
                    try buildBatch()
                }
            }
            batch.append(assignment)
        }
        if !batch.isEmpty { groups.append((groups.last?.upperBound ?? 0)..<batch.count) }
        try buildBatch()
        return stats
    }
}
