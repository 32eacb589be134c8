/// Cutting geometry in tile units at the tile's buffered square, on plain SIMD2 vertices
/// (the tiler's hot path, so no z/m and no allocation beyond the output).
enum TileClipping {
    /// Pieces of a line inside [lo, hi]² (Liang-Barsky per segment, joined while contiguous).
    static func clipLine(_ line: [SIMD2<Double>], lo: Double, hi: Double, into pieces: inout [[SIMD2<Double>]]) {
        var current: [SIMD2<Double>] = []
        if line.count == 1 {
            return
        }
        for i in 0..<(line.count - 1) {
            let a = line[i], b = line[i + 1]
            var t0 = 0.0, t1 = 1.0
            let d = b - a
            var outside = false
            for (p, q) in [(-d.x, a.x - lo), (d.x, hi - a.x), (-d.y, a.y - lo), (d.y, hi - a.y)] {
                if p == 0 {
                    if q < 0 { outside = true; break }
                } else {
                    let r = q / p
                    if p < 0 {
                        if r > t1 { outside = true; break }
                        if r > t0 { t0 = r }
                    } else {
                        if r < t0 { outside = true; break }
                        if r < t1 { t1 = r }
                    }
                }
            }
            if outside {
                if current.count >= 2 { pieces.append(current) }
                current.removeAll(keepingCapacity: false)
                continue
            }
            let p = t0 == 0 ? a : a + d * t0
            let q = t1 == 1 ? b : a + d * t1
            if current.isEmpty || current[current.count - 1] != p {
                if current.count >= 2 { pieces.append(current) }
                current = [p]
            }
            current.append(q)
            if t1 < 1 {
                pieces.append(current)
                current = []
            }
        }
        if current.count >= 2 { pieces.append(current) }
    }

    /// A ring clipped to [lo, hi]² by Sutherland-Hodgman: concave rings may gain edges along the
    /// square's border, which draw correctly. The ring is open (no repeated first vertex).
    static func clipRing(_ ring: [SIMD2<Double>], lo: Double, hi: Double) -> [SIMD2<Double>] {
        var output = ring
        var input: [SIMD2<Double>] = []
        for edge in 0..<4 {
            if output.isEmpty { break }
            swap(&input, &output)
            output.removeAll(keepingCapacity: true)
            func inside(_ p: SIMD2<Double>) -> Bool {
                switch edge {
                case 0: return p.x >= lo
                case 1: return p.x <= hi
                case 2: return p.y >= lo
                default: return p.y <= hi
                }
            }
            func cut(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> SIMD2<Double> {
                switch edge {
                case 0, 1:
                    let x = edge == 0 ? lo : hi
                    let t = (x - a.x) / (b.x - a.x)
                    return SIMD2(x, a.y + (b.y - a.y) * t)
                default:
                    let y = edge == 2 ? lo : hi
                    let t = (y - a.y) / (b.y - a.y)
                    return SIMD2(a.x + (b.x - a.x) * t, y)
                }
            }
            var previous = input[input.count - 1]
            var previousInside = inside(previous)
            for current in input {
                let currentInside = inside(current)
                if currentInside {
                    if !previousInside { output.append(cut(previous, current)) }
                    output.append(current)
                } else if previousInside {
                    output.append(cut(previous, current))
                }
                previous = current
                previousInside = currentInside
            }
        }
        return output
    }
}
