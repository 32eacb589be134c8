import Foundation
import MapbookData
import MapbookTestSupport
import Testing
@testable import MapbookTiles
import MapbookPackage

/// The tiler end to end: features in, gzip'd MVT out, decoded with our decoder.
@Suite struct TilerTests {
    /// Every tile a tiler builds, decoded.
    static func tiles(_ tiler: Tiler) throws -> (tiles: [TileCoordinate: VectorTile], sizes: [TileCoordinate: Int], report: TilerReport) {
        var tiles: [TileCoordinate: VectorTile] = [:]
        var sizes: [TileCoordinate: Int] = [:]
        var order: [TileCoordinate] = []
        let report = try tiler.build { coordinate, data in
            let decoded = try VectorTileDecoder().decode(data, source: "\(coordinate)")
            #expect(decoded.warnings.isEmpty, "tile \(coordinate): \(decoded.warnings)")
            #expect(decoded.wasCompressed)
            tiles[coordinate] = decoded.tile
            sizes[coordinate] = data.count
            order.append(coordinate)
        }
        #expect(order == order.sorted(), "tiles arrive in zoom, row, column order")
        return (tiles, sizes, report)
    }

    static func readGeoJSON(_ path: String, into tiler: Tiler, layer: String, normalize: Bool = false) throws -> Int {
        let reader = try GeoJSONReader(path: path)
        let index = tiler.addLayer(TilerLayer(name: layer, fields: reader.schema.fields.map(\.name)))
        var count = 0
        while let feature = try reader.next() {
            guard var g = feature.geometry else { continue }
            if normalize { g = Antimeridian.normalize(g).0 }
            if try tiler.add(layer: index, geometry: g, values: feature.values) { count += 1 }
        }
        return count
    }

    static func features(_ tile: VectorTile?, _ layer: String) -> [VectorTile.Feature] {
        tile?.layer(named: layer)?.features ?? []
    }

    @Test(Fixtures.required)
    func usStatesLandInTheTilesGeojsonVtPutsThem() throws {
        // geojson-vt's expected tiles share our grid (tile z/x/y cover the same ground whatever
        // their pixel size) and its 64-unit buffer; compare which states each tile holds.
        var options = TilerOptions()
        options.maxZoom = 7
        options.buffer = 64
        let tiler = Tiler(options: options)
        _ = try Self.readGeoJSON(Fixtures.path("geojson-vt/us-states.json"), into: tiler, layer: "states")
        let (tiles, _, _) = try Self.tiles(tiler)
        let expected = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Fixtures.path("geojson-vt/us-states-tiles.json")))) as! [String: [[String: Any]]]
        var compared = 0
        for (key, features) in expected {
            let parts = key.dropFirst().split(separator: "-").compactMap { Int($0) }
            let coordinate = TileCoordinate(z: parts[0], x: parts[1], y: parts[2])
            let names = Set(features.compactMap { ($0["tags"] as? [String: Any])?["name"] as? String })
            // States under one screen pixel of area in this tile (64 square units of 4096: the
            // tiler pools those into pixel squares) may be missing.
            let subPixel = Set(features.compactMap { f -> String? in
                guard let rings = f["geometry"] as? [[[Double]]], let name = (f["tags"] as? [String: Any])?["name"] as? String else { return nil }
                let area = rings.reduce(0.0) { sum, ring in
                    var a = 0.0
                    for i in ring.indices { let p = ring[i], q = ring[(i + 1) % ring.count]; a += p[0] * q[1] - q[0] * p[1] }
                    return sum + a / 2
                }
                return abs(area) < 64 ? name : nil
            })
            let ours = Self.features(tiles[coordinate], "states")
            let layer = tiles[coordinate]?.layer(named: "states")
            let ourNames = Set(ours.compactMap { f -> String? in
                guard let layer, let k = layer.keys.firstIndex(of: "name") else { return nil }
                for t in stride(from: 0, to: f.tags.count, by: 2) where f.tags[t] == UInt32(k) {
                    if case .string(let s) = layer.values[Int(f.tags[t + 1])] { return s }
                }
                return nil
            })
            // A state geojson-vt keeps may be dropped by us only if it is under a pixel here.
            #expect(names.subtracting(ourNames).subtracting(subPixel).isEmpty, "tile \(coordinate): geojson-vt has \(names.subtracting(ourNames).sorted()) that we lack")
            #expect(ourNames.subtracting(names).isEmpty, "tile \(coordinate): we have \(ourNames.subtracting(names).sorted()) that geojson-vt does not")
            compared += 1
        }
        #expect(compared == expected.count)
    }

    @Test(Fixtures.required)
    func datelineFeaturesAreTiledOnBothSides() throws {
        // geojson-vt's dateline fixture has longitudes past 180: at z0 the parts past the
        // antimeridian appear wrapped on the west edge, as in its expected z0 tile.
        var options = TilerOptions()
        options.maxZoom = 1
        let tiler = Tiler(options: options)
        _ = try Self.readGeoJSON(Fixtures.path("geojson-vt/dateline.json"), into: tiler, layer: "d")
        let (tiles, _, _) = try Self.tiles(tiler)
        let z0 = Self.features(tiles[TileCoordinate(z: 0, x: 0, y: 0)], "d")
        var xs: [Int32] = []
        for f in z0 {
            switch try f.decodeGeometry() {
            case .points(let p): xs += p.map(\.x)
            case .lines(let l): xs += l.flatMap { $0.map(\.x) }
            case .polygons(let p): xs += p.flatMap { $0.flatMap { $0.map(\.x) } }
            }
        }
        #expect(xs.contains { $0 < 200 }, "the wrapped copy reaches the west edge")
        #expect(xs.contains { $0 > 4000 }, "the original reaches the east edge")
        // At z1 the western tiles hold the wrapped parts too.
        #expect(!Self.features(tiles[TileCoordinate(z: 1, x: 0, y: 1)], "d").isEmpty || !Self.features(tiles[TileCoordinate(z: 1, x: 0, y: 0)], "d").isEmpty)
    }

    @Test(Fixtures.required)
    func wraparoundPolygonIsTiledWhereTippecanoePutsIt() throws {
        // tippecanoe's wraparound test: an island polygon whose ring jumps across 180°. The
        // importer splits it at the antimeridian; both halves must be in the tiles at each edge.
        var options = TilerOptions()
        options.maxZoom = 5
        let tiler = Tiler(options: options)
        _ = try Self.readGeoJSON(Fixtures.path("tippecanoe-edge/tests/wraparound/in.json"), into: tiler, layer: "in", normalize: true)
        let (tiles, _, _) = try Self.tiles(tiler)
        let expected = try String(contentsOfFile: Fixtures.path("tippecanoe-edge/tests/wraparound/out/-z5_--detect-longitude-wraparound.json"), encoding: .utf8)
        // tippecanoe's output lists its tiles as "zoom": z, "x": x, "y": y.
        let regex = try NSRegularExpression(pattern: #""zoom": (\d+), "x": (\d+), "y": (\d+)"#)
        var theirs = Set<TileCoordinate>()
        for m in regex.matches(in: expected, range: NSRange(expected.startIndex..., in: expected)) {
            let n = (1...3).map { Int((expected as NSString).substring(with: m.range(at: $0)))! }
            theirs.insert(TileCoordinate(z: n[0], x: n[1], y: n[2]))
        }
        #expect(theirs.contains { $0.z == 5 && $0.x == 0 } && theirs.contains { $0.z == 5 && $0.x == 31 })
        let ours = Set(tiles.keys.filter { !Self.features(tiles[$0], "in").isEmpty })
        for z in 0...5 {
            let columns = Set(ours.filter { $0.z == z }.map(\.x))
            let theirColumns = Set(theirs.filter { $0.z == z }.map(\.x))
            #expect(columns == theirColumns, "z\(z): our columns \(columns.sorted()), tippecanoe's \(theirColumns.sorted())")
        }
    }

    /// A star-shaped ring with many spikes and a hole close to its shell: simplifying it
    /// carelessly makes edges cross or the hole poke out.
    static func spikyPolygon(centre: (Double, Double), radius: Double, spikes: Int) -> Geometry {
        var shell: [Position] = []
        for i in 0..<(spikes * 2) {
            let angle = Double(i) / Double(spikes * 2) * 2 * .pi
            let r = i % 2 == 0 ? radius : radius * 0.55
            shell.append(Position(x: centre.0 + r * cos(angle), y: centre.1 + r * sin(angle) * 0.8))
        }
        shell.append(shell[0])
        var hole: [Position] = []
        for i in 0..<40 {
            let angle = -Double(i) / 40 * 2 * .pi
            hole.append(Position(x: centre.0 + radius * 0.5 * cos(angle), y: centre.1 + radius * 0.5 * sin(angle) * 0.8))
        }
        hole.append(hole[0])
        return Geometry(.polygon([shell, hole]))
    }

    @Test func simplifiedPolygonsStayValidAtEveryZoom() throws {
        var options = TilerOptions()
        options.maxZoom = 8
        options.tolerance = 40
        let tiler = Tiler(options: options)
        let layer = tiler.addLayer(TilerLayer(name: "stars"))
        for i in 0..<20 {
            try tiler.add(layer: layer, geometry: Self.spikyPolygon(centre: (-120 + Double(i) * 12, 10 + Double(i % 5) * 8), radius: 3 + Double(i % 4), spikes: 300))
        }
        let (tiles, _, report) = try Self.tiles(tiler)
        var polygons = 0
        for (coordinate, tile) in tiles {
            for feature in Self.features(tile, "stars") {
                guard case .polygons(let list) = try feature.decodeGeometry() else {
                    Issue.record("tile \(coordinate): a polygon feature decoded as another type")
                    continue
                }
                for rings in list {
                    polygons += 1
                    #expect(TileSimplifier.doubleArea(rings[0]) > 0, "tile \(coordinate): exterior ring wound clockwise on screen")
                    for hole in rings.dropFirst() { #expect(TileSimplifier.doubleArea(hole) < 0, "tile \(coordinate): hole wound the other way") }
                    #expect(!TileSimplifier.hasCrossing(rings), "tile \(coordinate): simplified rings cross")
                }
            }
        }
        #expect(polygons > 100)
        // The tolerance is big enough that some polygons needed a second, gentler pass.
        #expect(report.zooms.reduce(0) { $0 + $1.polygonsResimplified } > 0)
    }

    /// Deterministic clustered points: `clusters` centres with points spread around them.
    static func clusteredPoints(_ count: Int, clusters: Int = 20) -> [Position] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        let centres = (0..<clusters).map { _ in (next() * 300 - 150, next() * 120 - 60) }
        return (0..<count).map { i in
            let c = centres[i % clusters]
            return Position(x: c.0 + (next() - 0.5) * 4 * next(), y: c.1 + (next() - 0.5) * 3 * next())
        }
    }

    @Test func densePointsAreThinnedKeepingTheirPattern() throws {
        var options = TilerOptions()
        options.maxZoom = 6
        let tiler = Tiler(options: options)
        let layer = tiler.addLayer(TilerLayer(name: "points", fields: ["n"]))
        let points = Self.clusteredPoints(50_000)
        for (i, p) in points.enumerated() { try tiler.add(layer: layer, geometry: Geometry(.point(p)), values: [.integer(Int64(i))]) }
        let (tiles, _, report) = try Self.tiles(tiler)
        // Points inside each tile proper (the buffers repeat some).
        var kept = [Int](repeating: 0, count: 7)
        for (coordinate, tile) in tiles {
            for f in Self.features(tile, "points") {
                if case .points(let p) = try f.decodeGeometry() { kept[coordinate.z] += p.filter { (0..<4096).contains($0.x) && (0..<4096).contains($0.y) }.count }
            }
        }
        #expect(kept == kept.sorted(), "each zoom shows at least the points of the one above: \(kept)")
        #expect(kept.last == points.count, "the deepest zoom keeps every point")
        #expect(kept.first! < points.count / 4, "z0 is thinned")
        // Every 4-pixel cell of the z0 tile that has points in the data has a point in the tile.
        func cell(_ x: Double, _ y: Double) -> Int { Int(x / 32) * 1000 + Int(y / 32) }
        var dataCells = Set<Int>()
        for p in points {
            let w = Tiler.world(longitude: p.x, latitude: p.y)
            dataCells.insert(cell(w.x * 4096, w.y * 4096))
        }
        var tileCells = Set<Int>()
        for f in Self.features(tiles[TileCoordinate(z: 0, x: 0, y: 0)], "points") {
            // A point rounded to the tile grid may cross a cell edge by half a unit.
            if case .points(let p) = try f.decodeGeometry() {
                for q in p { for dx in [-0.5, 0.5] { for dy in [-0.5, 0.5] { tileCells.insert(cell(Double(q.x) + dx, Double(q.y) + dy)) } } }
            }
        }
        #expect(dataCells.subtracting(tileCells).isEmpty, "the z0 tile keeps the density pattern: \(dataCells.subtracting(tileCells).count) of \(dataCells.count) cells lost")
    }

    @Test func tilesStayUnderTheByteLimitAndSaySo() throws {
        var options = TilerOptions()
        options.maxZoom = 3
        options.maxTileBytes = 20_000
        let tiler = Tiler(options: options)
        let layer = tiler.addLayer(TilerLayer(name: "points", fields: ["name"]))
        for (i, p) in Self.clusteredPoints(30_000, clusters: 3).enumerated() {
            try tiler.add(layer: layer, geometry: Geometry(.point(p)), values: [.text("Point number \(i)")])
        }
        let (_, sizes, report) = try Self.tiles(tiler)
        #expect(sizes.values.allSatisfy { $0 <= 20_000 })
        #expect(report.zooms.contains { $0.tilesOverLimit > 0 && $0.strategies["thinned points"] != nil })
        #expect(report.lines.contains { $0.contains("hit the size or feature limit") })
    }

    @Test func theMaximumZoomIsGuessedFromSpacing() throws {
        let sparse = Tiler()
        let a = sparse.addLayer(TilerLayer(name: "p"))
        for i in 0..<50 { try sparse.add(layer: a, geometry: Geometry(.point(Position(x: Double(i) * 7 - 170, y: Double(i % 7) * 10 - 30)))) }
        let dense = Tiler()
        let b = dense.addLayer(TilerLayer(name: "p"))
        for (i, p) in Self.clusteredPoints(20_000, clusters: 2).enumerated() where i < 20_000 { try dense.add(layer: b, geometry: Geometry(.point(p))) }
        let sparseZoom = try sparse.guessMaxZoom(), denseZoom = try dense.guessMaxZoom()
        #expect(sparseZoom < denseZoom)
        #expect(sparseZoom <= 4)
        #expect(denseZoom >= sparseZoom + 3)
    }

    @Test func layerZoomsAndAttributesAreHonoured() throws {
        var options = TilerOptions()
        options.maxZoom = 4
        let tiler = Tiler(options: options)
        let roads = tiler.addLayer(TilerLayer(name: "roads", minZoom: 2, fields: ["name"]))
        try tiler.add(layer: roads, geometry: Geometry(.lineString([Position(x: -10, y: 0), Position(x: 10, y: 5)])), values: [.text("Main St")], id: 7)
        let (tiles, _, _) = try Self.tiles(tiler)
        #expect(tiles.keys.filter { $0.z < 2 }.isEmpty)
        let z2 = tiles.filter { $0.key.z == 2 }.values.compactMap { $0.layer(named: "roads") }
        #expect(!z2.isEmpty)
        #expect(z2.allSatisfy { $0.keys == ["name"] && $0.values == [.string("Main St")] && $0.features.allSatisfy { $0.id == 7 } })
    }
}
