import Foundation
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing

@testable import MapbookTiles

/// PMTiles v3: tile IDs, directories, the writer and the reader (fixtures/pmtiles).
@Suite struct PMTilesTests {
    /// The spec's table (section 4.1) and its last example.
    @Test(arguments: [(0, 0, 0, 0), (1, 0, 0, 1), (1, 0, 1, 2), (1, 1, 1, 3), (1, 1, 0, 4), (2, 0, 0, 5), (12, 3423, 1763, 19_078_479)] as [(Int, Int, Int, UInt64)])
    func tileIDsFollowTheSpecTable(z: Int, x: Int, y: Int, id: UInt64) {
        let c = TileCoordinate(z: z, x: x, y: y)
        #expect(PMTiles.tileID(c) == id)
        #expect(PMTiles.coordinate(ofTileID: id) == c)
    }

    @Test func tileIDsAreABijectionOnEveryZoomUpToSeven() {
        var next: UInt64 = 0
        var ids: [UInt64] = []
        for z in 0...7 {
            for x in 0..<(1 << z) {
                for y in 0..<(1 << z) {
                    let c = TileCoordinate(z: z, x: x, y: y)
                    let id = PMTiles.tileID(c)
                    ids.append(id)
                    #expect(PMTiles.coordinate(ofTileID: id) == c)
                }
            }
            next += UInt64(1) << (2 * UInt64(z))
        }
        #expect(Set(ids).count == ids.count && ids.max() == next - 1)
    }

    @Test func directoriesRoundTripWithContiguousAndRepeatedOffsets() throws {
        let entries = [
            PMTiles.Entry(tileID: 0, offset: 0, length: 10, runLength: 1),
            PMTiles.Entry(tileID: 1, offset: 10, length: 5, runLength: 3),
            PMTiles.Entry(tileID: 9, offset: 0, length: 10, runLength: 1),  // a repeated tile points back
            PMTiles.Entry(tileID: 300, offset: 1 << 40, length: 70_000, runLength: 0),
        ]
        let bytes = PMTiles.encode(entries)
        #expect(try PMTiles.decode(bytes, path: "dir") == entries)
        #expect(throws: TileArchiveError.self) { try PMTiles.decode(Array(bytes.dropLast()), path: "dir") }
        #expect(throws: TileArchiveError.self) { try PMTiles.decode([0xFF, 0xFF, 0xFF, 0x0F], path: "dir") }
    }

    static func metadata(layers: [VectorLayerInfo] = TestTiles.layers) -> TileArchiveMetadata {
        TileArchiveMetadata(
            name: "Test", description: "PMTiles test", attribution: "Mapbook tests",
            bounds: BoundingBox(minX: -88.25, minY: 41.70, maxX: -88.05, maxY: 41.85), minZoom: 8, maxZoom: 12, layers: layers)
    }

    @Test func writesAndReadsBackEveryTileWithRunsAndDeduplication() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/t.pmtiles"
            let writer = try PMTilesWriter(path: path, metadata: Self.metadata())
            let tiles = TestTiles.coordinates(minZoom: 8, maxZoom: 12)
            // One tile repeated over a run of consecutive IDs (as the sea is), the rest distinct.
            let sea = Gzip.compress(Array("sea".utf8))
            let run = (0..<4).map { PMTiles.coordinate(ofTileID: PMTiles.tileID(TileCoordinate(z: 14, x: 0, y: 0)) + UInt64($0)) }
            var expected: [TileCoordinate: [UInt8]] = [:]
            for c in tiles { expected[c] = TestTiles.gzipped(c) }
            for c in run { expected[c] = sea }
            expected[TileCoordinate(z: 14, x: 5000, y: 5000)] = sea  // far from the run: a back reference
            var generator = SeededGenerator(state: 3)
            for (c, bytes) in expected.shuffled(using: &generator) { try writer.addTile(bytes, at: c) }
            try writer.finish()

            let header = try #require(writer.header)
            #expect(header.addressedTiles == UInt64(expected.count))
            #expect(header.tileEntries == UInt64(expected.count - 3))  // the run of four is one entry
            #expect(header.tileContents == UInt64(tiles.count + 1))  // the sea is stored once
            #expect(header.clustered && header.internalCompression == .gzip && header.tileCompression == .gzip && header.tileType == .mvt)
            #expect(header.minZoom == 8 && header.maxZoom == 14)

            let reader = try PMTilesReader(path: path)
            #expect(reader.header == header)
            #expect(try reader.tileCoordinates() == expected.keys.sorted())
            for (c, bytes) in expected { #expect(try reader.tile(at: c) == bytes) }
            #expect(try reader.tile(at: TileCoordinate(z: 14, x: 100, y: 100)) == nil)
            #expect(try reader.tile(at: TileCoordinate(z: 3, x: 0, y: 0)) == nil)
            #expect(reader.metadata.layers == TestTiles.layers)
            #expect(reader.metadata.name == "Test" && reader.metadata.attribution == "Mapbook tests")
            let bounds = try #require(reader.metadata.bounds)
            #expect(abs(bounds.minX + 88.25) < 1e-7 && abs(bounds.maxY - 41.85) < 1e-7)
        }
    }

    @Test func manyTilesGoToLeafDirectoriesAndTheRootFitsIn16KiB() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/many.pmtiles"
            var meta = Self.metadata(layers: [])
            meta.format = .unknown
            meta.tileCompression = .none
            let writer = try PMTilesWriter(path: path, metadata: meta)
            var count = 0
            for z in 0...8 {
                for x in 0..<(1 << z) {
                    for y in 0..<(1 << z) {
                        try writer.addTile(Array("\(z)/\(x)/\(y)".utf8), at: TileCoordinate(z: z, x: x, y: y))
                        count += 1
                    }
                }
            }
            try writer.finish()
            let header = try #require(writer.header)
            #expect(header.leafDirectoriesLength > 0)
            #expect(header.rootOffset + header.rootLength <= 16_384)
            #expect(header.addressedTiles == UInt64(count))
            let reader = try PMTilesReader(path: path)
            let coordinates = try reader.tileCoordinates()
            #expect(coordinates.count == count)
            for c in coordinates where c.x == c.y || c.z == 8 && c.x % 37 == 0 {
                #expect(try reader.tile(at: c) == Array("\(c.z)/\(c.x)/\(c.y)".utf8))
            }
        }
    }

    @Test func anArchiveWithoutTilesIsRefusedAndLeavesNothing() throws {
        try withTemporaryDirectory { dir in
            let writer = try PMTilesWriter(path: dir + "/e.pmtiles", metadata: Self.metadata())
            #expect(throws: TileArchiveError.self) { try writer.finish() }
            let aborted = try PMTilesWriter(path: dir + "/a.pmtiles", metadata: Self.metadata())
            try aborted.addTile([1, 2, 3], at: TileCoordinate(z: 0, x: 0, y: 0))
            aborted.abort()
            #expect(listTree(dir).isEmpty)
        }
    }

    /// An archive with one root directory and `data` as tile data, as a hostile writer might make it.
    static func forged(_ entries: [PMTiles.Entry], data: [UInt8] = [1, 2, 3, 4], leaves: [UInt8] = []) -> [UInt8] {
        let root = Gzip.compress(PMTiles.encode(entries))
        let metadata = Gzip.compress(Array("{}".utf8))
        var header = PMTiles.Header()
        header.rootOffset = 127
        header.rootLength = UInt64(root.count)
        header.metadataOffset = 127 + UInt64(root.count)
        header.metadataLength = UInt64(metadata.count)
        header.leafDirectoriesOffset = header.metadataOffset + header.metadataLength
        header.leafDirectoriesLength = UInt64(leaves.count)
        header.tileDataOffset = header.leafDirectoriesOffset + header.leafDirectoriesLength
        header.tileDataLength = UInt64(data.count)
        return header.bytes + root + metadata + leaves + data
    }

    @Test func forgedDirectoriesGiveErrorsNotCrashes() throws {
        try withTemporaryDirectory { dir in
            func open(_ bytes: [UInt8]) throws -> PMTilesReader {
                try writeFile(dir + "/f.pmtiles", bytes)
                return try PMTilesReader(path: dir + "/f.pmtiles")
            }
            let origin = TileCoordinate(z: 0, x: 0, y: 0)
            // A run claiming four billion tiles: each tile reads, the list is refused.
            let run = try open(Self.forged([PMTiles.Entry(tileID: 0, offset: 0, length: 4, runLength: UInt32.max)]))
            #expect(try run.tile(at: TileCoordinate(z: 5, x: 3, y: 7)) == [1, 2, 3, 4])
            #expect(throws: TileArchiveError.self) { try run.tileCoordinates() }
            // A tile or leaf directory pointing far outside its section.
            let far = try open(Self.forged([PMTiles.Entry(tileID: 0, offset: UInt64.max - 1, length: 4, runLength: 1)]))
            #expect(throws: TileArchiveError.self) { try far.tile(at: origin) }
            let leaf = try open(Self.forged([PMTiles.Entry(tileID: 0, offset: UInt64.max - 1, length: 9, runLength: 0)]))
            #expect(throws: TileArchiveError.self) { try leaf.tile(at: origin) }
            #expect(throws: TileArchiveError.self) { try leaf.tileCoordinates() }
            // A leaf that points at itself nests without end.
            let loopLeaf = Gzip.compress(PMTiles.encode([PMTiles.Entry(tileID: 0, offset: 0, length: 0, runLength: 0)]))
            let selfLeaf = Gzip.compress(PMTiles.encode([PMTiles.Entry(tileID: 0, offset: 0, length: UInt32(loopLeaf.count), runLength: 0)]))
            let loop = try open(Self.forged([PMTiles.Entry(tileID: 0, offset: 0, length: UInt32(selfLeaf.count), runLength: 0)], leaves: selfLeaf))
            #expect(throws: TileArchiveError.self) { try loop.tile(at: origin) }
            // Truncated: the sections run past the end of the file.
            let whole = Self.forged([PMTiles.Entry(tileID: 0, offset: 0, length: 4, runLength: 1)])
            #expect(throws: TileArchiveError.self) { try open(Array(whole.dropLast(2))) }
            #expect(throws: TileArchiveError.self) { try open(Array(whole.prefix(100))) }
        }
    }

    @Test(Fixtures.required) func readsTheReferenceArchivesAndRefusesTheInvalidOnes() throws {
        let data = "pmtiles/js/test/data/"
        let reader = try PMTilesReader(path: Fixtures.path(data + "test_fixture_1.pmtiles"))
        #expect(reader.header.minZoom == 0 && !reader.header.clustered)
        #expect(try reader.tileCoordinates() == [TileCoordinate(z: 0, x: 0, y: 0)])
        let tile = try #require(try reader.tile(at: TileCoordinate(z: 0, x: 0, y: 0)))
        #expect(Gzip.hasMagic(tile))
        #expect(reader.metadata.layers.map(\.id) == ["test_fixture_1pmtiles"])
        #expect(reader.metadata.layers.first?.geometry == .polygon)

        let mlt = try PMTilesReader(path: Fixtures.path(data + "test_fixture_mlt.pmtiles"))
        #expect(try mlt.tileCoordinates().isEmpty)
        #expect(mlt.metadata.layers.count == 2)

        for bad in ["empty.pmtiles", "invalid.pmtiles", "invalid_v4.pmtiles"] {
            let error = #expect(throws: TileArchiveError.self) { try PMTilesReader(path: Fixtures.path(data + bad)) }
            #expect(error?.description.contains(bad) == true)
        }
    }
}
