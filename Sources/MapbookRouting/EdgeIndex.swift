import MapbookSupport

#if canImport(Glibc)
import Glibc
#endif

/// A packed R-tree over the network's edges (by the boxes of their shapes), built once and
/// stored with the network: leaves sorted along a Hilbert curve, 16 children per node, each
/// level's boxes after the one below it, as flatbush lays them out.
enum EdgeIndex {
    static let nodeSize = 16

    /// The tree's boxes and, per box, the edge (leaves) or first child box (above).
    static func build(_ network: StreetNetwork) -> (boxes: [BoundingBox], entries: [UInt32], levelEnds: [UInt32]) {
        let count = network.edges.count
        guard count > 0 else { return ([], [], []) }
        var leaves: [BoundingBox] = (0..<count).map { e in
            var b = BoundingBox.empty
            for p in network.shape(e) { b.include(x: p.lon, y: p.lat) }
            return b
        }
        var all = BoundingBox.empty
        for b in leaves { all = all.union(b) }
        let width = max(all.maxX - all.minX, 1e-12), height = max(all.maxY - all.minY, 1e-12)
        let hilbertKeys: [UInt32] = leaves.map { b in
            let x = UInt32(((b.minX + b.maxX) / 2 - all.minX) / width * 65535)
            let y = UInt32(((b.minY + b.maxY) / 2 - all.minY) / height * 65535)
            return hilbert(x, y)
        }
        let order = (0..<count).sorted { hilbertKeys[$0] < hilbertKeys[$1] }
        leaves = order.map { leaves[$0] }
        var boxes = leaves
        var entries = order.map { UInt32($0) }
        var levelEnds: [UInt32] = [UInt32(boxes.count)]
        var levelStart = 0
        while boxes.count - levelStart > 1 {
            let levelEnd = boxes.count
            var i = levelStart
            while i < levelEnd {
                var b = BoundingBox.empty
                for j in i..<min(i + nodeSize, levelEnd) { b = b.union(boxes[j]) }
                boxes.append(b)
                entries.append(UInt32(i))
                i += nodeSize
            }
            levelStart = levelEnd
            levelEnds.append(UInt32(boxes.count))
        }
        return (boxes, entries, levelEnds)
    }

    /// The Hilbert curve index of (x, y) on a 2^16 grid.
    static func hilbert(_ x: UInt32, _ y: UInt32) -> UInt32 {
        var rx: UInt32 = 0, ry: UInt32 = 0, d: UInt32 = 0
        var x = x, y = y
        var s: UInt32 = 1 << 15
        while s > 0 {
            rx = (x & s) > 0 ? 1 : 0
            ry = (y & s) > 0 ? 1 : 0
            d &+= s &* s &* ((3 &* rx) ^ ry)
            if ry == 0 {
                if rx == 1 {
                    x = 65535 &- x
                    y = 65535 &- y
                }
                swap(&x, &y)
            }
            s >>= 1
        }
        return d
    }
}
