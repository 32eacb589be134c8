#if canImport(Glibc)
import Glibc
#endif

extension Tiler {
    /// Sets each point feature's first zoom so that below the layer's maximum zoom at most one
    /// point stands in each cell of `pointSpacing` screen pixels: the first in source order.
    ///
    /// Cells nest from zoom to zoom (a power of two of them to a tile side), so a point shown at
    /// one zoom is shown at every deeper one, and a cell that has points always shows one: the
    /// density pattern survives, sparse points are all kept, and nothing is cut off by a count.
    /// Because they nest, a point's first zoom is the shallowest at which it is the first of
    /// its cell, and one pass over the points in Morton order (where every cell at every zoom
    /// is a run) finds it: each zoom keeps the cell it is in and the first point seen in it.
    func thinPoints() throws {
        firstZooms = [UInt8](repeating: 0, count: featureCount)
        let cellBits = max(Int(log2(TilerOptions.tilePixels / options.pointSpacing).rounded()), 0)
        var layer = -1
        var levels = 0..<0
        var cells: [UInt64] = [], firsts: [UInt32] = []
        // A cell ends: its first point shows from that zoom on.
        func close(_ i: Int, zoom z: Int) {
            guard firsts[i] != .max else { return }
            firstZooms[Int(firsts[i])] = min(firstZooms[Int(firsts[i])], UInt8(z))
        }
        func closeAll() {
            for (i, z) in levels.enumerated() { close(i, zoom: z) }
        }
        try forEachPoint { point in
            if Int(point.layer) != layer {
                closeAll()
                layer = Int(point.layer)
                let store = layers[layer]
                levels = store.minZoom..<max(store.maxZoom, store.minZoom)
                cells = [UInt64](repeating: 0, count: levels.count)
                firsts = [UInt32](repeating: .max, count: levels.count)
            }
            let store = layers[layer]
            firstZooms[Int(point.ordinal)] = UInt8(clamping: max(store.maxZoom, store.minZoom))
            for (i, z) in levels.enumerated() {
                let cell = point.key >> UInt64(2 * (32 - min(z + cellBits, 32)))
                if firsts[i] == .max || cell != cells[i] {
                    close(i, zoom: z)
                    cells[i] = cell
                    firsts[i] = point.ordinal
                } else if point.ordinal < firsts[i] {
                    firsts[i] = point.ordinal
                }
            }
        }
        closeAll()
    }

    /// The zoom at which features stand apart: points `pointSpacing` screen pixels from their
    /// neighbours (geometric mean over neighbours in Morton order), line and polygon vertices
    /// 16 pixels apart (geometric mean segment length). Clamped to the minimum zoom and 16.
    func guessMaxZoom() throws -> Int {
        var zoom = options.minZoom
        for store in layers where store.segmentCount > 0 {
            let mean = exp(store.segmentLogSum / store.segmentCount)
            zoom = max(zoom, Int(log2(16 / (TilerOptions.tilePixels * mean)).rounded(.up)))
        }
        var layer = -1
        var previous = SIMD2<Double>.zero
        var logSum = 0.0, count = 0.0
        func finishLayer() {
            guard count > 0 else { return }
            let mean = exp(logSum / count)
            zoom = max(zoom, Int(log2(options.pointSpacing / (TilerOptions.tilePixels * mean)).rounded(.up)))
        }
        try forEachPoint { point in
            let p = Self.position(morton: point.key)
            if Int(point.layer) != layer {
                finishLayer()
                layer = Int(point.layer)
                logSum = 0
                count = 0
            } else {
                let d = p - previous
                let length = (d.x * d.x + d.y * d.y).squareRoot()
                if length > 0 { logSum += log(length); count += 1 }
            }
            previous = p
        }
        finishLayer()
        return min(max(zoom, options.minZoom), 16)
    }

    /// The Morton (Z-order) key of a world position in [0, 1), 32 bits per axis.
    static func morton(x: Double, y: Double) -> UInt64 {
        func spread(_ v: UInt64) -> UInt64 {
            var x = v & 0xFFFF_FFFF
            x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF
            x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF
            x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F
            x = (x | (x << 2)) & 0x3333_3333_3333_3333
            x = (x | (x << 1)) & 0x5555_5555_5555_5555
            return x
        }
        let scale = 4_294_967_296.0
        let ix = UInt64(min(max(x * scale, 0), scale - 1)), iy = UInt64(min(max(y * scale, 0), scale - 1))
        return spread(ix) | (spread(iy) << 1)
    }

    /// The world position a Morton key stands for (to 2^-32 of the world).
    static func position(morton key: UInt64) -> SIMD2<Double> {
        func compact(_ v: UInt64) -> UInt64 {
            var x = v & 0x5555_5555_5555_5555
            x = (x | (x >> 1)) & 0x3333_3333_3333_3333
            x = (x | (x >> 2)) & 0x0F0F_0F0F_0F0F_0F0F
            x = (x | (x >> 4)) & 0x00FF_00FF_00FF_00FF
            x = (x | (x >> 8)) & 0x0000_FFFF_0000_FFFF
            x = (x | (x >> 16)) & 0x0000_0000_FFFF_FFFF
            return x
        }
        let scale = 4_294_967_296.0
        return SIMD2(Double(compact(key)) / scale, Double(compact(key >> 1)) / scale)
    }
}
