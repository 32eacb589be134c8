// Bounding-box and point-within-distance queries on 1,000,000 points through `FeatureTable`,
// with SQLite's own R-tree lookup (ids only, nothing decoded or tested) measured in the same
// run as the floor to compare with.
//
//   feature-queries GPKG [POINTS] [QUERIES]
//
// Writes GPKG (POINTS random points in Web Mercator over a 40 km square, with the GeoPackage
// R-tree) when it does not exist, then runs QUERIES boxes of 400 m a side (a phone screen at
// street zoom: about 100 points each) and QUERIES within-25 m-of-a-point queries at random
// places, and prints p50 and p99 of each.
import MapbookData

#if canImport(Glibc)
import Glibc
#endif
import MapbookSupport

/// A fixed-seed generator so runs are comparable.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

let origin = (x: -9_813_000.0, y: 5_122_000.0)
let side = 40_000.0

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

func write(_ path: String, points: Int) throws {
    let writer = try GeoPackageWriter(path: path, crs: .webMercator, timestamp: 1_767_225_600)
    let schema = LayerSchema(name: "points", fields: [Field(name: "kind", type: .integer)], geometryType: .point, crs: .webMercator)
    try writer.beginLayer(table: "points", schema: schema, identifier: "points", description: "")
    var random = SplitMix64(state: 1)
    for i in 0..<points {
        let p = Position(x: origin.x + Double.random(in: 0..<side, using: &random), y: origin.y + Double.random(in: 0..<side, using: &random))
        _ = try writer.add(geometry: Geometry(.point(p)), values: [.integer(Int64(i % 7))])
    }
    _ = try writer.finishLayer()
    try writer.close()
}

/// `value` with `places` decimals, without Foundation.
func fixed(_ value: Double, _ places: Int) -> String {
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let n = Int((value * scale).rounded())
    let whole = n / Int(scale), fraction = String(abs(n) % Int(scale))
    return "\(whole)." + String(repeating: "0", count: places - fraction.count) + fraction
}

func percentiles(_ samples: [Double]) -> (p50: Double, p99: Double) {
    let sorted = samples.sorted()
    return (sorted[sorted.count / 2] * 1000, sorted[min(sorted.count - 1, sorted.count * 99 / 100)] * 1000)
}

func run() -> Int32 {
    let arguments = CommandLine.arguments
    guard arguments.count >= 2 else {
        print("usage: feature-queries GPKG [POINTS] [QUERIES]")
        return 64
    }
    let path = arguments[1]
    let points = arguments.count > 2 ? Int(arguments[2]) ?? 1_000_000 : 1_000_000
    let queries = arguments.count > 3 ? Int(arguments[3]) ?? 2000 : 2000
    do {
        if access(path, F_OK) != 0 {
            let start = now()
            try write(path, points: points)
            print("wrote \(points) points to \(path) in \(fixed(now() - start, 1)) s")
        }
        let database = try SQLiteDatabase(readOnlyPath: path)
        let table = try FeatureTable(database: database, table: "points")
        let rtree = try database.prepare("SELECT id FROM rtree_points_geom WHERE minx <= ? AND maxx >= ? AND miny <= ? AND maxy >= ?")
        var random = SplitMix64(state: 2)
        var boxTimes: [Double] = [], rawTimes: [Double] = [], nearTimes: [Double] = []
        var found = 0, rawFound = 0, near = 0
        for _ in 0..<queries {
            let x = origin.x + Double.random(in: 0..<(side - 400), using: &random)
            let y = origin.y + Double.random(in: 0..<(side - 400), using: &random)
            let box = BoundingBox(minX: x, minY: y, maxX: x + 400, maxY: y + 400)

            var t = now()
            let cursor = try table.features(in: box, fields: ["kind"])
            while try cursor.next() != nil { found += 1 }
            boxTimes.append(now() - t)

            t = now()
            try rtree.bind([.real(box.maxX), .real(box.minX), .real(box.maxY), .real(box.minY)])
            while try rtree.step() { rawFound += 1 }
            rtree.reset()
            rawTimes.append(now() - t)

            t = now()
            near += try table.features(within: 25, of: Position(x: x + 200, y: y + 200), fields: ["kind"]).count
            nearTimes.append(now() - t)
        }
        let b = percentiles(boxTimes), r = percentiles(rawTimes), n = percentiles(nearTimes)
        print("queries: \(queries) on \(points) points")
        print("box 400 m, FeatureTable (decoded, tested):  p50 \(fixed(b.p50, 3)) ms  p99 \(fixed(b.p99, 3)) ms  (\(fixed(Double(found) / Double(queries), 1)) features a query)")
        print("box 400 m, SQLite R-tree ids only (floor):   p50 \(fixed(r.p50, 3)) ms  p99 \(fixed(r.p99, 3)) ms  (\(fixed(Double(rawFound) / Double(queries), 1)) ids a query)")
        print("within 25 m of a point, FeatureTable:        p50 \(fixed(n.p50, 3)) ms  p99 \(fixed(n.p99, 3)) ms  (\(fixed(Double(near) / Double(queries), 2)) features a query)")
        return 0
    } catch {
        print("feature-queries: \(error)")
        return 1
    }
}

exit(run())
