import Foundation
import MapbookData
import MapbookPackage
import MapbookTestSupport
import Testing

@testable import MapbookTiles

/// The tiler out of core: with a memory setting far below what the features need, it sorts in
/// runs on disk and gives the same tiles, byte for byte, as with its features in memory.
@Suite struct TilerMemoryTests {
    @Test func theSorterGivesTheSameOrderFromRunsOnDiskAsFromMemory() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var random = SplitMix64(seed: 36)
        let values = (0..<10_000).map { i in (UInt64(random.next() % 500), UInt64(i)) }
        // 64 records a run: 157 runs merged.
        let small = ExternalSorter<(UInt64, UInt64)>(memory: 1, directory: dir.path) { $0 < $1 }
        let large = ExternalSorter<(UInt64, UInt64)>(memory: 1 << 20, directory: dir.path) { $0 < $1 }
        for v in values {
            try small.append(v)
            try large.append(v)
        }
        #expect(small.spilled && !large.spilled)
        var fromDisk: [(UInt64, UInt64)] = [], inMemory: [(UInt64, UInt64)] = []
        try small.forEach { fromDisk.append($0) }
        try large.forEach { inMemory.append($0) }
        let expected = values.sorted { $0 < $1 }
        #expect(fromDisk.elementsEqual(expected) { $0 == $1 })
        #expect(inMemory.elementsEqual(expected) { $0 == $1 })
        // A second reading gives the same again.
        var again = 0
        try small.forEach { if $0 == expected[again] { again += 1 } }
        #expect(again == expected.count)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "the runs' file was unlinked at once")
    }

    /// Points in clusters with text and numbers (thinned at every zoom below the last), spiky
    /// polygons (simplified, some relaxed), lines across the antimeridian and multipoints.
    static func fill(_ tiler: Tiler) throws {
        let points = tiler.addLayer(TilerLayer(name: "points", fields: ["name", "n"]))
        for (i, p) in TilerTests.clusteredPoints(12_000, clusters: 6).enumerated() {
            try tiler.add(layer: points, geometry: Geometry(.point(p)), values: [.text("Point \(i % 900)"), .integer(Int64(i % 37))], id: UInt64(i + 1))
        }
        let shapes = tiler.addLayer(TilerLayer(name: "shapes", fields: ["kind"]))
        for i in 0..<12 {
            try tiler.add(
                layer: shapes, geometry: TilerTests.spikyPolygon(centre: (-120 + Double(i) * 20, -40 + Double(i % 5) * 15), radius: 2 + Double(i % 4), spikes: 200),
                values: [.text(i % 2 == 0 ? "even" : "odd")])
        }
        for i in 0..<40 {
            let y = -60 + Double(i) * 3
            let line = Geometry(.lineString([Position(x: 170, y: y), Position(x: 185, y: y + 1), Position(x: 195, y: y - 1)]))
            try tiler.add(layer: shapes, geometry: Antimeridian.normalize(line).0, values: [.real(Double(i) / 4)])
            try tiler.add(layer: shapes, geometry: Geometry(.multiPoint([Position(x: Double(i) - 20, y: y), Position(x: Double(i) - 19.5, y: y + 0.5)])), values: [.text("pair")])
        }
    }

    static func tiles(memory: Int, maxZoom: Int? = 9, directory: String, fill: (Tiler) throws -> Void) throws -> (Tiler, [TileCoordinate: [UInt8]], TilerReport) {
        var options = TilerOptions()
        options.maxZoom = maxZoom
        options.memory = memory
        options.workDirectory = directory
        let tiler = Tiler(options: options)
        try fill(tiler)
        var tiles: [TileCoordinate: [UInt8]] = [:]
        var order: [TileCoordinate] = []
        let report = try tiler.build { coordinate, data in
            tiles[coordinate] = data
            order.append(coordinate)
        }
        #expect(order == order.sorted(), "tiles arrive in zoom, row, column order")
        return (tiler, tiles, report)
    }

    static func expectSameTiles(_ a: [TileCoordinate: [UInt8]], _ b: [TileCoordinate: [UInt8]]) throws {
        #expect(Set(a.keys) == Set(b.keys))
        var differing: [TileCoordinate] = []
        for (coordinate, data) in a where b[coordinate] != data {
            let left = try VectorTileDecoder().decode(data, source: "\(coordinate)").tile
            let right = try b[coordinate].map { try VectorTileDecoder().decode($0, source: "\(coordinate)").tile }
            if left != right { differing.append(coordinate) }
        }
        #expect(differing.isEmpty, "tiles decoded differently: \(differing.sorted().prefix(5))")
    }

    @Test func aTinyMemorySettingGivesTheSameTilesAsMemoryForAll() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (roomy, inMemory, roomyReport) = try Self.tiles(memory: 1 << 30, directory: dir.path, fill: Self.fill)
        let (tight, outOfCore, tightReport) = try Self.tiles(memory: 4096, directory: dir.path, fill: Self.fill)
        #expect(!roomy.sortedOnDisk)
        #expect(tight.sortedOnDisk, "4 KiB cannot hold the assignments: they were sorted in runs on disk")
        #expect(inMemory.count > 1_000)
        try Self.expectSameTiles(inMemory, outOfCore)
        #expect(roomyReport == tightReport, "the per-zoom statistics and drop reports agree")
        #expect(roomyReport.zooms[0].featuresKept < 6_000, "points were thinned at the first zoom")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "no temporary file is left")
    }

    @Test func theGuessedMaximumZoomDoesNotDependOnTheMemory() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (_, inMemory, roomy) = try Self.tiles(memory: 1 << 30, maxZoom: nil, directory: dir.path, fill: Self.fill)
        let (_, outOfCore, tight) = try Self.tiles(memory: 4096, maxZoom: nil, directory: dir.path, fill: Self.fill)
        #expect(roomy.maxZoomGuessed && roomy.maxZoom == tight.maxZoom)
        try Self.expectSameTiles(inMemory, outOfCore)
    }

    @Test(Fixtures.required)
    func naturalEarthTilesTheSameOutOfCore() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        func fill(_ tiler: Tiler) throws {
            for name in ["ne_110m_admin_0_countries", "ne_110m_populated_places"] {
                _ = try TilerTests.readGeoJSON(Fixtures.path("natural-earth/110m/\(name).json"), into: tiler, layer: name, normalize: true)
            }
        }
        let (_, inMemory, roomy) = try Self.tiles(memory: 1 << 30, maxZoom: 6, directory: dir.path, fill: fill)
        let (tight, outOfCore, tightReport) = try Self.tiles(memory: 16 << 10, maxZoom: 6, directory: dir.path, fill: fill)
        #expect(tight.sortedOnDisk)
        try Self.expectSameTiles(inMemory, outOfCore)
        #expect(roomy == tightReport)
    }
}
