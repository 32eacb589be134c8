import Foundation
import MapbookPackage
import MapbookTestSupport
import Testing

@testable import MapbookTiles

/// The Compact Cache V2 bundle writer against real bundles, and the reader on every tile of them.
@Suite struct CompactCacheBundleTests {
    static let basemapTiles = "vtpk-basemapde/sample_cache/p12/tile"

    /// The source tiles of one level of the basemap fixture, `sample_pbf/z/x/y.pbf`.
    static func sourceTiles(level: Int) throws -> [(coordinate: TileCoordinate, bytes: [UInt8])] {
        let folder = Fixtures.path("vtpk-basemapde/sample_pbf/\(level)")
        return try listTree(folder).filter { $0.hasSuffix(".pbf") }.map { relative in
            let parts = relative.dropLast(4).split(separator: "/")
            return (TileCoordinate(z: level, x: Int(parts[0])!, y: Int(parts[1])!), try readFile(folder + "/" + relative))
        }
    }

    @Test(Fixtures.required, arguments: 0...4)
    func rebuildsTheBasemapBundlesByteForByte(level: Int) throws {
        var writer = CompactCacheBundleWriter()
        let sources = try Self.sourceTiles(level: level)
        #expect(!sources.isEmpty)
        for (coordinate, bytes) in sources {
            try writer.setTile(bytes, row: coordinate.y % 128, column: coordinate.x % 128)
        }
        let written = writer.bytes
        let realPath = Fixtures.path("\(Self.basemapTiles)/L0\(level)/R0000C0000.bundle")
        let real = try readFile(realPath)

        // Every index slot holds the same tile bytes, read back with the existing reader.
        let ours = try CompactCacheBundle(headerAndIndex: written, length: Int64(written.count), path: "ours")
        let theirs = try CompactCacheBundle(headerAndIndex: real, length: Int64(real.count), path: realPath)
        for row in 0..<128 {
            for column in 0..<128 {
                let a = ours.tile(row: row, column: column).map { Array(written[Int($0.offset)..<Int($0.offset) + $0.size]) }
                let b = theirs.tile(row: row, column: column).map { Array(real[Int($0.offset)..<Int($0.offset) + $0.size]) }
                #expect(a == b, "level \(level), row \(row), column \(column)")
            }
        }
        #expect(ours.tileCount == sources.count)
        // And the files are identical, header included.
        #expect(written == real)
    }

    @Test func headerCarriesTheValuesOfTheFormatDescription() throws {
        var writer = CompactCacheBundleWriter()
        try writer.setTile([1, 2, 3], row: 0, column: 1)
        try writer.setTile([4, 5, 6, 7, 8], row: 127, column: 127)
        let bytes = writer.bytes
        func u32(_ at: Int) -> UInt32 { bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt32.self) } }
        func u64(_ at: Int) -> UInt64 { bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt64.self) } }
        #expect(u32(0) == 3)  // version
        #expect(u32(4) == 16384)  // record count
        #expect(u32(8) == 5)  // largest tile
        #expect(u32(12) == 5)  // offset byte count
        #expect(u64(16) == 0)  // slack
        #expect(u64(24) == UInt64(bytes.count))  // file size
        #expect(u64(32) == 40)
        #expect(u32(40) == 20 + 131_072)
        #expect([u32(44), u32(48), u32(52), u32(56), u32(60)] == [3, 16, 16384, 5, 131_072])
        // Tiles follow the index in row-major order, each after its 4-byte size.
        let first = u64(64 + 8 * 1)
        #expect(first >> 40 == 3 && first & 0xFF_FFFF_FFFF == 64 + 131_072 + 4)
        let last = u64(64 + 8 * 16383)
        #expect(last >> 40 == 5 && last & 0xFF_FFFF_FFFF == 64 + 131_072 + 4 + 3 + 4)
        #expect(u32(Int(last & 0xFF_FFFF_FFFF) - 4) == 5)
        #expect(bytes.count == 64 + 131_072 + 7 + 9)
    }

    @Test(arguments: [(-1, 0, 3), (0, 128, 3), (128, 0, 3), (5, 5, 0), (0, 0, 1 << 24)])
    func refusesTilesOutsideTheBundleOrOfImpossibleSize(row: Int, column: Int, size: Int) {
        var writer = CompactCacheBundleWriter()
        #expect(throws: TileArchiveError.self) { try writer.setTile([UInt8](repeating: 1, count: size), row: row, column: column) }
    }

    /// The real bundles: the basemap's five vector bundles and the raster bundle.
    static let realBundles: [(path: String, tiles: Int, magic: [UInt8])] = (0...4).map {
        ("\(basemapTiles)/L0\($0)/R0000C0000.bundle", 1, [0x1F, 0x8B])
    } + [("esri-compactcache/L01_R0000C0000.bundle", 4, [0xFF, 0xD8, 0xFF])]

    @Test(Fixtures.required, arguments: realBundles.indices)
    func readsEveryTileOfARealBundle(which: Int) throws {
        let (relative, expectedTiles, magic) = Self.realBundles[which]
        let path = Fixtures.path(relative)
        let bytes = try readFile(path)
        let bundle = try CompactCacheBundle(headerAndIndex: bytes, length: Int64(bytes.count), path: path)
        #expect(bundle.indexProblems().isEmpty)
        #expect(bundle.tileCount == expectedTiles)
        var seen = 0
        var sizes: [Int] = []
        for row in 0..<128 {
            for column in 0..<128 {
                guard let (offset, size) = bundle.tile(row: row, column: column) else { continue }
                seen += 1
                #expect(offset >= Int64(CompactCacheBundle.fixedSize + 4) && offset + Int64(size) <= Int64(bytes.count))
                // The size before each tile agrees with the index.
                let prefix = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: Int(offset) - 4, as: UInt32.self) }
                #expect(Int(prefix) == size)
                #expect(Array(bytes[Int(offset)..<Int(offset) + magic.count]) == magic)
                sizes.append(size)
            }
        }
        #expect(seen == expectedTiles)
        // What `inspect` counts, reading the index in place, agrees with the tiles read above.
        let counts = try CompactCacheBundle.counts(range: ByteRange(file: try RandomAccessFile(path: path)), path: path)
        #expect(counts.tiles == seen && counts.bytes == Int64(sizes.reduce(0, +)) && counts.largest == sizes.max())
    }

    @Test func countsOfABundleShorterThanItsIndexAreRefusedNamingIt() throws {
        try withTemporaryDirectory { folder in
            let path = folder + "/R0000C0000.bundle"
            try writeFile(path, [UInt8](repeating: 0, count: CompactCacheBundle.fixedSize - 1))
            #expect {
                try CompactCacheBundle.counts(range: ByteRange(file: try RandomAccessFile(path: path)), path: path)
            } throws: { ($0 as? PackageFormatError)?.kind == .damaged && ($0 as? PackageFormatError)?.path == path }
        }
    }
}
