#if canImport(Glibc)
import Glibc
#endif
import MapbookPackage
import MapbookSupport

/// Builds one tile: clips each assigned feature at the buffered tile square, simplifies it,
/// keeps polygons free of self-crossings, encodes and compresses, and when the tile is past
/// the byte or feature limit builds it again with more thinning and simplification.
///
/// One per worker thread: it owns a zlib stream and scratch tables.
struct TileBuilder {
    struct Context: @unchecked Sendable {
        // Safety: the feature file is only read during a build, with `pread`, which threads
        // may call at once.
        var options: TilerOptions
        var layers: [TilerLayer]
        /// The tiler's feature file.
        var file: TilerWorkFile
    }

    struct Result {
        var tile: TileCoordinate
        /// The gzip-compressed tile; nil when no feature ended up in it.
        var data: [UInt8]?
        var kept = 0
        var dropped = 0
        var tinyMerged = 0
        var resimplified = 0
        var strategies: [String] = []
        /// The feature file could not be read.
        var failure: (any Error)?
    }

    /// What a build pass may do to fit the limits.
    struct Reduction {
        /// Keep every n-th point of the tile.
        var pointStride = 1
        /// Multiplies the simplification tolerance.
        var toleranceScale = 1.0
        /// Lines and polygons smaller than this (world units) are left out.
        var minimumSize = 0.0
    }

    let context: Context
    let compressor = Gzip.Compressor()
    /// The tile's feature records, read into memory of this builder's own.
    let features = TileFeatures()

    init(context: Context) {
        self.context = context
    }

    mutating func build(_ tile: TileCoordinate, _ records: UnsafeBufferPointer<Tiler.Assignment>) -> Result {
        let options = context.options
        var reduction = Reduction()
        var strategies: [String] = []
        do {
            try features.gather(records, from: context.file)
        } catch {
            return Result(tile: tile, failure: error)
        }
        defer { features.shrink() }
        var pass = encode(tile, records, reduction)
        for _ in 0..<40 {
            var bytes = pass.kept > 0 ? compressor.compress(pass.bytes) : []
            let fits = bytes.count <= options.maxTileBytes && pass.kept <= options.maxTileFeatures
            if fits || pass.kept == 0 {
                if pass.kept == 0 { bytes = [] }
                return Result(
                    tile: tile, data: pass.kept > 0 ? bytes : nil, kept: pass.kept, dropped: pass.dropped, tinyMerged: pass.tinyMerged,
                    resimplified: pass.resimplified, strategies: strategies)
            }
            // Points first (drop the densest: every other point of the tile), then simplify lines
            // and polygons harder, then leave out the smallest of them.
            if pass.points > 0 && (pass.points * 2 >= pass.kept || reduction.toleranceScale >= 16) {
                reduction.pointStride *= 2
                if !strategies.contains("thinned points") { strategies.append("thinned points") }
            } else if reduction.toleranceScale < 16 && pass.shapes > 0 {
                reduction.toleranceScale *= 2
                if !strategies.contains("simplified more") { strategies.append("simplified more") }
            } else {
                reduction.minimumSize = nextSizeThreshold(records, above: reduction.minimumSize)
                if !strategies.contains("dropped smallest") { strategies.append("dropped smallest") }
            }
            pass = encode(tile, records, reduction)
        }
        // Unreachable in practice: 40 halvings leave nothing. Keep the tile empty rather than over the limit.
        return Result(tile: tile, data: nil, kept: 0, dropped: pass.kept + pass.dropped, strategies: strategies + ["emptied"])
    }

    /// The median size of the lines and polygons in the tile above `above`.
    func nextSizeThreshold(_ records: UnsafeBufferPointer<Tiler.Assignment>, above: Double) -> Double {
        var sizes: [Double] = []
        for i in records.indices {
            let f = features[i]
            if f.kind != .point && f.size >= above { sizes.append(f.size) }
        }
        guard !sizes.isEmpty else { return .infinity }
        sizes.sort()
        return max(sizes[sizes.count / 2], above) + Double.ulpOfOne
    }

    struct Pass {
        var bytes: [UInt8] = []
        var kept = 0
        var points = 0
        var shapes = 0
        var dropped = 0
        var tinyMerged = 0
        var resimplified = 0
    }

    func encode(_ tile: TileCoordinate, _ records: UnsafeBufferPointer<Tiler.Assignment>, _ reduction: Reduction) -> Pass {
        let options = context.options
        let extent = Double(options.extent)
        let lo = -Double(options.buffer), hi = extent + Double(options.buffer)
        let n = Double(1 << tile.z)
        let worldToUnits = n * extent
        let pixel = options.unitsPerPixel
        let tinyArea = pixel * pixel
        let tolerance = options.tolerance * reduction.toleranceScale
        var pass = Pass()
        var vectorTile = VectorTile()
        var start = 0
        while start < records.count {
            var end = start + 1
            while end < records.count, records[end].layer == records[start].layer { end += 1 }
            let spec = context.layers[Int(records[start].layer)]
            var layer = VectorTile.Layer(name: spec.name, extent: UInt32(options.extent))
            var keyMap = [Int32](repeating: -1, count: spec.fields.count)
            var valueMap: [ValueBytes: UInt32] = [:]
            var pointIndex = 0
            var tinyAccumulated = 0.0
            for i in start..<end {
                let r = records[i], f = features[i]
                let ox = Double(r.column), oy = Double(tile.y)
                @inline(__always) func local(_ v: SIMD2<Double>) -> SIMD2<Double> {
                    SIMD2((v.x * n - ox) * extent, (v.y * n - oy) * extent)
                }
                var geometry: TileGeometry?
                switch f.kind {
                case .point:
                    pointIndex += 1
                    if (pointIndex - 1) % reduction.pointStride != 0 {
                        pass.dropped += 1
                        continue
                    }
                    var points: [TilePoint] = []
                    for v in f.vertices[..<Int(f.parts[0] & ~TilerRecord.polygonStart)] {
                        let p = local(v)
                        let x = p.x.rounded(), y = p.y.rounded()
                        if x >= lo, x <= hi, y >= lo, y <= hi {
                            points.append(TilePoint(x: Int32(x), y: Int32(y)))
                        }
                    }
                    if !points.isEmpty { geometry = .points(points) }
                case .line:
                    if f.size * worldToUnits < pixel || f.size < reduction.minimumSize {
                        pass.dropped += 1
                        continue
                    }
                    var pieces: [[SIMD2<Double>]] = []
                    let square = BoundingBox(minX: lo, minY: lo, maxX: hi, maxY: hi)
                    f.forEachPart { part, _ in
                        square.clipLine(part.map(local), into: &pieces)
                    }
                    let lines = pieces.map { TileSimplifier.round(TileSimplifier.simplify($0, tolerance: tolerance), closed: false) }.filter { $0.count >= 2 }
                    if !lines.isEmpty { geometry = .lines(lines) }
                case .polygon:
                    let area = f.size * worldToUnits * worldToUnits
                    if area < tinyArea || f.size < reduction.minimumSize {
                        // A polygon smaller than a pixel: its area is pooled, and each time the
                        // pool fills a pixel a one-pixel square stands for it, so scattered small
                        // polygons still show as a texture (tippecanoe does the same).
                        let centre = local(SIMD2((f.minX + f.maxX) / 2, (f.minY + f.maxY) / 2))
                        guard centre.x >= 0, centre.x < extent, centre.y >= 0, centre.y < extent else { continue }
                        tinyAccumulated += f.size < reduction.minimumSize ? 0 : area
                        if tinyAccumulated >= tinyArea {
                            tinyAccumulated -= tinyArea
                            let x = Int32((centre.x - pixel / 2).rounded()), y = Int32((centre.y - pixel / 2).rounded())
                            let s = Int32(pixel)
                            geometry = .polygons([[[TilePoint(x: x, y: y), TilePoint(x: x + s, y: y), TilePoint(x: x + s, y: y + s), TilePoint(x: x, y: y + s)]]])
                            pass.tinyMerged += 1
                        } else {
                            pass.dropped += 1
                            continue
                        }
                    } else {
                        var polygons: [[[TilePoint]]] = []
                        var rings: [[SIMD2<Double>]] = []
                        f.forEachPart { part, startsPolygon in
                            if startsPolygon, !rings.isEmpty {
                                if let p = polygon(rings, lo: lo, hi: hi, tolerance: tolerance, pass: &pass) { polygons.append(p) }
                                rings.removeAll()
                            }
                            rings.append(part.map(local))
                        }
                        if !rings.isEmpty, let p = polygon(rings, lo: lo, hi: hi, tolerance: tolerance, pass: &pass) { polygons.append(p) }
                        if !polygons.isEmpty { geometry = .polygons(polygons) }
                    }
                }
                guard let geometry else { continue }
                // The encoder leaves out parts that collapse; a feature left with none is not written.
                let encoded = VectorTile.Feature(id: f.id, geometry: geometry)
                guard !encoded.geometry.isEmpty else { continue }
                var tags: [UInt32] = []
                tags.reserveCapacity(f.tagCount * 2)
                f.forEachTag { key, value in
                    if keyMap[key] < 0 {
                        keyMap[key] = Int32(layer.keys.count)
                        layer.keys.append(spec.fields[key])
                    }
                    let localValue: UInt32
                    if let v = valueMap[ValueBytes(bytes: value)] {
                        localValue = v
                    } else {
                        localValue = UInt32(layer.values.count)
                        valueMap[ValueBytes(bytes: value)] = localValue
                        layer.values.append(TilerRecord.value(value))
                    }
                    tags.append(UInt32(keyMap[key]))
                    tags.append(localValue)
                }
                var feature = encoded
                feature.tags = tags
                layer.features.append(feature)
                pass.kept += 1
                if f.kind == .point { pass.points += 1 } else { pass.shapes += 1 }
            }
            if !layer.features.isEmpty { vectorTile.layers.append(layer) }
            start = end
        }
        if pass.kept > 0 { pass.bytes = vectorTile.encoded() }
        return pass
    }

    /// A value's bytes in the feature file, as a key: equal values have equal bytes.
    struct ValueBytes: Hashable {
        let bytes: UnsafeRawBufferPointer

        static func == (a: ValueBytes, b: ValueBytes) -> Bool {
            a.bytes.count == b.bytes.count && memcmp(a.bytes.baseAddress!, b.bytes.baseAddress!, a.bytes.count) == 0
        }

        func hash(into hasher: inout Hasher) { hasher.combine(bytes: bytes) }
    }

    /// One polygon (exterior then holes, in tile units) clipped, simplified and wound as MVT
    /// wants (exterior positive area, holes negative). If simplifying made rings cross or flip,
    /// it is redone with a quarter of the tolerance, down to none. Nil when nothing is left.
    func polygon(_ rings: [[SIMD2<Double>]], lo: Double, hi: Double, tolerance: Double, pass: inout Pass) -> [[TilePoint]]? {
        var clipped: [[SIMD2<Double>]] = []
        let square = BoundingBox(minX: lo, minY: lo, maxX: hi, maxY: hi)
        for (i, ring) in rings.enumerated() {
            let c = square.clipRing(ring)
            if c.count < 3 {
                if i == 0 { return nil }
                continue
            }
            clipped.append(c)
        }
        var tolerance = tolerance
        while true {
            var result: [[TilePoint]] = []
            var flipped = false
            for (i, ring) in clipped.enumerated() {
                var r = TileSimplifier.round(TileSimplifier.simplifyRing(ring, tolerance: tolerance), closed: true)
                let area = TileSimplifier.doubleArea(r)
                if r.count < 3 || area == 0 {
                    if i == 0 { return nil }
                    continue
                }
                // The unsimplified ring's orientation says which way this one must turn.
                if (TileSimplifier.doubleArea(ring) > 0) != (area > 0) { flipped = true }
                if (i == 0) != (area > 0) { r.reverse() }
                result.append(r)
            }
            if tolerance == 0 || (!flipped && !TileSimplifier.hasCrossing(result)) {
                return result
            }
            pass.resimplified += 1
            tolerance = tolerance / 4 < 0.5 ? 0 : tolerance / 4
        }
    }
}
