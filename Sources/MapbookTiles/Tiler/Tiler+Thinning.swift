#if canImport(Glibc)
import Glibc
#endif

extension Tiler {
    /// Sets each point feature's first zoom so that below the layer's maximum zoom at most one
    /// point stands in each cell of `pointSpacing` screen pixels: the first in source order.
    ///
    /// Cells nest from zoom to zoom, so a point shown at one zoom is shown at every deeper one,
    /// and a cell that has points always shows one: the density pattern survives, sparse
    /// points are all kept, and nothing is cut off by a count.
    func thinPoints(_ store: TilerLayerStore, maxZoom: Int) {
        var kept: [Int] = []
        for (i, f) in store.features.enumerated() where f.kind == .point {
            store.features[i].minZoom = Int8(store.minZoom)
            kept.append(i)
        }
        guard !kept.isEmpty, maxZoom > store.minZoom else { return }
        for i in kept { store.features[i].minZoom = Int8(maxZoom) }
        var seen = Set<UInt64>()
        var z = maxZoom - 1
        while z >= store.minZoom, !kept.isEmpty {
            let cells = TilerOptions.tilePixels * Double(1 << z) / options.pointSpacing
            seen.removeAll(keepingCapacity: true)
            seen.reserveCapacity(kept.count)
            var next: [Int] = []
            next.reserveCapacity(kept.count)
            for i in kept {
                let f = store.features[i]
                var x = f.minX.truncatingRemainder(dividingBy: 1)
                if x < 0 { x += 1 }
                let cx = UInt64(min(max(x * cells, 0), cells - 1))
                let cy = UInt64(min(max(f.minY * cells, 0), cells - 1))
                if seen.insert(cy &* UInt64(cells) &+ cx).inserted {
                    store.features[i].minZoom = Int8(z)
                    next.append(i)
                }
            }
            kept = next
            z -= 1
        }
    }

    /// The zoom at which features stand apart: points `pointSpacing` screen pixels from their
    /// neighbours (geometric mean over neighbours in Morton order), line and polygon vertices
    /// 16 pixels apart (geometric mean segment length). Clamped to the minimum zoom and 16.
    public func guessMaxZoom() -> Int {
        var zoom = options.minZoom
        for store in layers {
            var logSum = 0.0, count = 0.0
            var pointKeys: [(UInt64, SIMD2<Double>)] = []
            var v = 0
            for f in store.features {
                if f.kind == .point {
                    pointKeys.append((Self.morton(SIMD2(f.minX, f.minY)), SIMD2(f.minX, f.minY)))
                    continue
                }
                v = Int(f.vertexStart)
                for part in store.parts[Int(f.partStart)..<Int(f.partStart + f.partCount)] {
                    let n = Int(part & ~TilerLayerStore.polygonStart)
                    for i in 1..<max(n, 1) {
                        let d = store.vertices[v + i] - store.vertices[v + i - 1]
                        let length = (d.x * d.x + d.y * d.y).squareRoot()
                        if length > 0 { logSum += log(length); count += 1 }
                    }
                    v += n
                }
            }
            if count > 0 {
                let mean = exp(logSum / count)
                zoom = max(zoom, Int(log2(16 / (TilerOptions.tilePixels * mean)).rounded(.up)))
            }
            if pointKeys.count > 1 {
                pointKeys.sort { $0.0 < $1.0 }
                var pointLogSum = 0.0, pointCount = 0.0
                for i in 1..<pointKeys.count {
                    let d = pointKeys[i].1 - pointKeys[i - 1].1
                    let length = (d.x * d.x + d.y * d.y).squareRoot()
                    if length > 0 { pointLogSum += log(length); pointCount += 1 }
                }
                if pointCount > 0 {
                    let mean = exp(pointLogSum / pointCount)
                    zoom = max(zoom, Int(log2(options.pointSpacing / (TilerOptions.tilePixels * mean)).rounded(.up)))
                }
            }
        }
        return min(max(zoom, options.minZoom), 16)
    }

    /// The Morton (Z-order) key of a world position, 26 bits per axis.
    static func morton(_ p: SIMD2<Double>) -> UInt64 {
        func spread(_ v: UInt64) -> UInt64 {
            var x = v & 0x3FF_FFFF
            x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF
            x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF
            x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F
            x = (x | (x << 2)) & 0x3333_3333_3333_3333
            x = (x | (x << 1)) & 0x5555_5555_5555_5555
            return x
        }
        let scale = Double(1 << 26)
        let x = UInt64(min(max(p.x, 0), 0.999_999_9) * scale), y = UInt64(min(max(p.y, 0), 0.999_999_9) * scale)
        return spread(x) | (spread(y) << 1)
    }
}
