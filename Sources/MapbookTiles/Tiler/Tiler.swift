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
/// Not Sendable: features are added from one task; `build` then only reads them.
public final class Tiler {
    public let options: TilerOptions
    var layers: [TilerLayerStore] = []

    public init(options: TilerOptions = TilerOptions()) {
        self.options = options
    }

    private var guessedMaxZoom: Int?

    /// The zooms `build` writes: the options' range, the maximum guessed from the features
    /// when the options give none (computed once: it sorts every point).
    public var zoomRange: ClosedRange<Int> {
        if let maxZoom = options.maxZoom { return options.minZoom...max(maxZoom, options.minZoom) }
        if guessedMaxZoom == nil { guessedMaxZoom = guessMaxZoom() }
        return options.minZoom...max(guessedMaxZoom!, options.minZoom)
    }

    /// The extent of every feature added, in WGS84 degrees; nil when there are none.
    public var bounds: BoundingBox? {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for store in layers {
            for f in store.features {
                minX = min(minX, f.minX); maxX = max(maxX, f.maxX)
                minY = min(minY, f.minY); maxY = max(maxY, f.maxY)
            }
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
        var counts = [0, 0, 0]
        for f in layers[layer].features { counts[Int(f.kind.rawValue)] += 1 }
        guard let best = counts.indices.max(by: { counts[$0] < counts[$1] }), counts[best] > 0 else { return nil }
        return [.point, .line, .polygon][best]
    }

    /// Adds a layer; features are then added to it by the returned index.
    public func addLayer(_ spec: TilerLayer) -> Int {
        let store = TilerLayerStore(spec: spec, index: layers.count, minZoom: spec.minZoom ?? 0, maxZoom: spec.maxZoom ?? 30)
        layers.append(store)
        return store.index
    }

    public var featureCount: Int { layers.reduce(0) { $0 + $1.features.count } }

    /// Adds a feature in WGS84 longitude/latitude with values in the order of the layer's
    /// `fields` (nulls and blobs are left out of the tiles). Returns false when the geometry is
    /// empty or a collection of mixed kinds, which MVT cannot hold as one feature.
    @discardableResult
    public func add(layer: Int, geometry: Geometry, values: [FieldValue] = [], id: UInt64? = nil) -> Bool {
        let store = layers[layer]
        let tagStart = store.tags.count
        for (key, value) in values.enumerated() where key < store.spec.fields.count {
            guard let tileValue = FeatureTileEncoder.value(value) else { continue }
            store.tags.append(UInt32(key))
            store.tags.append(store.valueID(tileValue))
        }
        let partStart = store.parts.count, vertexStart = store.vertices.count
        var kind: TilerFeature.Kind
        func append(_ positions: [Position], polygonStart: Bool = false) {
            for p in positions { store.vertices.append(Self.world(longitude: p.x, latitude: p.y)) }
            store.parts.append(UInt32(positions.count) | (polygonStart ? TilerLayerStore.polygonStart : 0))
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
        case .geometryCollection:
            store.tags.removeSubrange(tagStart...)
            return false
        }
        guard store.vertices.count > vertexStart else {
            store.tags.removeSubrange(tagStart...)
            store.parts.removeSubrange(partStart...)
            return false
        }
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for v in store.vertices[vertexStart...] {
            minX = min(minX, v.x); maxX = max(maxX, v.x)
            minY = min(minY, v.y); maxY = max(maxY, v.y)
        }
        var size = 0.0
        var v = vertexStart
        for part in store.parts[partStart...] {
            let count = Int(part & ~TilerLayerStore.polygonStart)
            let points = store.vertices[v..<(v + count)]
            if kind == .polygon {
                // Exterior rings add their area, holes take theirs away, whatever their winding.
                let area = abs(TileSimplifier.doubleArea(Array(points))) / 2
                size += part & TilerLayerStore.polygonStart != 0 ? area : -area
            } else if kind == .line {
                var previous = points.first!
                for p in points.dropFirst() {
                    let d = p - previous
                    size += (d.x * d.x + d.y * d.y).squareRoot()
                    previous = p
                }
            }
            v += count
        }
        store.features.append(
            TilerFeature(
                kind: kind, id: id, tagStart: UInt32(tagStart), tagCount: UInt32((store.tags.count - tagStart) / 2),
                partStart: UInt32(partStart), partCount: UInt32(store.parts.count - partStart), vertexStart: UInt32(vertexStart),
                minX: minX, minY: minY, maxX: maxX, maxY: maxY, size: abs(size)))
        return true
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
        let maxZoom = zoomRange.upperBound
        let minZoom = options.minZoom
        for store in layers {
            // The value lookup only serves adding features; tiling needs the table alone.
            store.valueIndex = [:]
            store.minZoom = max(store.spec.minZoom ?? minZoom, minZoom)
            store.maxZoom = min(store.spec.maxZoom ?? maxZoom, maxZoom)
            thinPoints(store, maxZoom: store.maxZoom)
        }
        var report = TilerReport(minZoom: minZoom, maxZoom: maxZoom, maxZoomGuessed: guessed, zooms: [])
        for z in minZoom...maxZoom {
            report.zooms.append(try buildZoom(z, sink))
            zoomDone?(report.zooms[report.zooms.count - 1])
        }
        return report
    }

    /// One feature's presence in one tile: `column` is unwrapped (negative or past the last
    /// column for a copy across the antimeridian).
    struct Assignment {
        var key: UInt64
        var layer: UInt32
        var feature: UInt32
        var column: Int32
    }

    func assignments(zoom z: Int) -> [Assignment] {
        let n = 1 << z
        let scale = Double(n)
        // Half a unit more than the buffer: a point that rounds onto the buffer's edge is in.
        let margin = (Double(options.buffer) + 0.5) / Double(options.extent)
        var result: [Assignment] = []
        for store in layers where z >= store.minZoom && z <= store.maxZoom {
            for (i, f) in store.features.enumerated() where Int(f.minZoom) <= z {
                let c0 = max(Int((f.minX * scale - margin).rounded(.down)), -n)
                let c1 = min(Int((f.maxX * scale + margin).rounded(.down)), 2 * n - 1)
                let r0 = max(Int((f.minY * scale - margin).rounded(.down)), 0)
                let r1 = min(Int((f.maxY * scale + margin).rounded(.down)), n - 1)
                guard c0 <= c1, r0 <= r1 else { continue }
                for row in r0...r1 {
                    for column in c0...c1 {
                        let wrapped = ((column % n) + n) % n
                        result.append(Assignment(key: UInt64(row) << 32 | UInt64(wrapped), layer: UInt32(store.index), feature: UInt32(i), column: Int32(column)))
                    }
                }
            }
        }
        // Stable within a tile: by layer, then source order, so drawing order is kept.
        result.sort { ($0.key, $0.layer, $0.feature, $0.column) < ($1.key, $1.layer, $1.feature, $1.column) }
        return result
    }

    func buildZoom(_ z: Int, _ sink: (TileCoordinate, [UInt8]) throws -> Void) throws -> TilerReport.Zoom {
        var stats = TilerReport.Zoom(zoom: z)
        let assigned = assignments(zoom: z)
        var groups: [Range<Int>] = []
        var start = 0
        while start < assigned.count {
            var end = start + 1
            while end < assigned.count, assigned[end].key == assigned[start].key { end += 1 }
            groups.append(start..<end)
            start = end
        }
        let threads = options.threads > 0 ? options.threads : max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1)
        let batchSize = 2048
        let context = TileBuilder.Context(options: options, layers: layers)
        var batchStart = 0
        while batchStart < groups.count {
            let batch = Array(groups[batchStart..<min(batchStart + batchSize, groups.count)])
            let results = UnsafeMutableBufferPointer<TileBuilder.Result?>.allocate(capacity: batch.count)
            results.initialize(repeating: nil)
            defer { results.deinitialize(); results.deallocate() }
            let next = Atomic<Int>(0)
            // Each worker takes the next tile from a shared counter and writes only its slot.
            nonisolated(unsafe) let slots = results
            assigned.withUnsafeBufferPointer { all in
                nonisolated(unsafe) let all = all
                DispatchQueue.concurrentPerform(iterations: threads) { _ in
                    var builder = TileBuilder(context: context)
                    while true {
                        let i = next.add(1, ordering: .relaxed).oldValue
                        guard i < batch.count else { break }
                        let range = batch[i]
                        let key = all[range.lowerBound].key
                        let tile = TileCoordinate(z: z, x: Int(key & 0xFFFF_FFFF), y: Int(key >> 32))
                        slots[i] = builder.build(tile, UnsafeBufferPointer(rebasing: all[range]))
                    }
                }
            }
            for result in results {
                guard let result else { continue }
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
            batchStart += batch.count
        }
        return stats
    }
}

extension TilerLayerStore: @unchecked Sendable {}
// Safety: a store is mutated only while features are added, from one task; during `build`
// (the only time it crosses threads) every worker only reads it.
