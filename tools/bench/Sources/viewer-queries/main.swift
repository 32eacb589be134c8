// The viewer's hot paths in one process, for docs/PERFORMANCE.md ("The viewer"):
// - identify at random places on a layer of 1,000,000 points (p50, p99), with SQLite's own
//   R-tree lookup of the same boxes (ids only) as the floor;
// - rendering a view warm, many times (median), and the floor of that work: decoding the
//   view's tiles and reading its features, without drawing.
//
//   viewer-queries identify PACKAGE.mmpk LAYER [QUERIES] [SCALE]
//   viewer-queries render PACKAGE.mmpk MAP BOOKMARK|LON,LAT,SCALE|initial [RUNS]
import MapbookData
import MapbookPackage
import MapbookRender
import MapbookTiles
import MapbookViewer

#if canImport(Glibc)
import Glibc
#endif

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

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
}

func milliseconds(_ s: Double) -> String {
    String(Double(Int((s * 1000 * 1000).rounded())) / 1000)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: viewer-queries identify PACKAGE LAYER [QUERIES] | render PACKAGE MAP BOOKMARK|LON,LAT,SCALE [RUNS]")
    exit(64)
}
let session = try MapSession(path: arguments[2])

switch arguments[1] {
case "identify":
    guard arguments.count >= 4 else { exit(64) }
    let queries = arguments.count > 4 ? Int(arguments[4]) ?? 2000 : 2000
    let scale = arguments.count > 5 ? Double(arguments[5]) ?? 5000 : 5000
    let map = try session.map(named: nil)
    let layer = try map.layer(named: arguments[3])
    // Identify only that layer: the others hidden for the run (not kept: no library).
    _ = try map.setVisibility(map.layers.filter { $0.id != layer.id }.map { (layer: $0.id, visible: false) })
    guard let entry = layer.definition.dataPath.flatMap({ session.package.entry(for: $0, mapEntry: map.entry) }),
        let table = layer.definition.dataPath?.table,
        let box = try FeatureTable(database: try session.package.database(entry), table: table).extent()
    else { fatalError("no extent for \(layer.title)") }
    var random = SplitMix64(state: 42)
    var times: [Double] = [], found = 0
    let view0 = try MapView(center: Position(x: box.minX, y: box.minY), scale: scale, width: 1024, height: 768)
    // One warm-up, as a viewer's first tap opens the table.
    _ = map.identify(at: Position(x: box.minX, y: box.minY), view: view0)
    for _ in 0..<queries {
        let p = Position(x: box.minX + Double.random(in: 0...1, using: &random) * box.width, y: box.minY + Double.random(in: 0...1, using: &random) * box.height)
        let view = try MapView(center: p, scale: scale, width: 1024, height: 768)
        let start = now()
        let report = map.identify(at: p, view: view)
        times.append(now() - start)
        found += report.results.count
    }
    times.sort()
    print("identify on '\(layer.title)' at 1:\(Int(scale)), 5 px: \(queries) queries, p50 \(milliseconds(percentile(times, 0.5))) ms, p99 \(milliseconds(percentile(times, 0.99))) ms, \(Double(found) / Double(queries)) pop-ups a query")

case "render":
    guard arguments.count >= 5 else { exit(64) }
    let runs = arguments.count > 5 ? Int(arguments[5]) ?? 20 : 20
    let map = try session.map(named: arguments[3])
    let view: MapView
    let place = arguments[4].split(separator: ",").compactMap { Double($0) }
    if place.count == 3 {
        view = try map.view(centeredOn: Position(x: place[0], y: place[1]), scale: place[2], width: 1024, height: 768)
    } else if arguments[4] == "initial" {
        view = try map.initialView(width: 1024, height: 768)
    } else {
        view = try map.view(of: try map.bookmark(named: arguments[4]), width: 1024, height: 768)
    }
    var times: [Double] = []
    var warnings: [String] = []
    for _ in 0...runs {
        let start = now()
        let rendered = try map.render(view)
        _ = try rendered.canvas.pngData()
        times.append(now() - start)
        warnings = rendered.warnings
    }
    let first = times.removeFirst()
    times.sort()
    print("render '\(map.name)' 1024x768 at 1:\(Int(view.scale.rounded())): first \(milliseconds(first)) ms, then median \(milliseconds(percentile(times, 0.5))) ms, p99 \(milliseconds(percentile(times, 0.99))) ms over \(runs) (PNG encoding included)")
    for w in warnings { print("  warning: \(w)") }

    // The floor: the view's tiles decoded and its features read, nothing drawn.
    var floors: [Double] = []
    for _ in 0..<runs {
        let start = now()
        if let vtpk = session.package.archive.entries.first(where: { $0.name.hasSuffix(".vtpk") }) {
            let reader = try VectorTilePackageReader(package: try session.package.tilePackage(vtpk))
            let zoom = BackdropRenderer.styleZoom(metresPerPixel: view.resolution)
            let level = min(max(Int(zoom.rounded(.down)), reader.metadata.minZoom), reader.metadata.maxZoom)
            let n = 1 << level, span = 2 * BackdropRenderer.halfWorld / Double(n), e = view.extent
            for y in max(0, Int((BackdropRenderer.halfWorld - e.maxY) / span))...min(n - 1, Int((BackdropRenderer.halfWorld - e.minY) / span)) {
                for x in Int((e.minX + BackdropRenderer.halfWorld) / span)...Int((e.maxX + BackdropRenderer.halfWorld) / span) {
                    if let bytes = try reader.tile(at: TileCoordinate(z: level, x: x, y: y)) {
                        let decoded = try VectorTileDecoder(checksGeometry: false).decode(bytes, source: "tile")
                        for layer in decoded.tile.layers { for f in layer.features { _ = try? f.decodeGeometry() } }
                    }
                }
            }
        }
        for entry in session.package.archive.entries where entry.name.hasSuffix("data.gpkg") {
            let db = try session.package.database(entry)
            for layer in map.layers where layer.isFeatureLayer && map.isShown(layer) && layer.isInScale(view.scale) {
                guard let table = layer.definition.dataPath?.table else { continue }
                let cursor = try FeatureTable(database: db, table: table).features(in: view.extent, fields: layer.definition.renderer?.fields ?? [])
                while try cursor.next() != nil {}
            }
        }
        floors.append(now() - start)
    }
    floors.sort()
    print("floor (decode the view's tiles, read its features): median \(milliseconds(percentile(floors, 0.5))) ms")

default:
    exit(64)
}
