import Testing
@testable import MapbookTiles

@Suite struct GzipTests {
    let sample = Array(repeating: Array("vector tiles compress well ".utf8), count: 200).flatMap { $0 }

    @Test func compressesDeterministicallyWithAFixedHeader() throws {
        let a = Gzip.compress(sample)
        #expect(a == Gzip.compress(sample))
        // Magic, deflate, no flags, mtime 0, XFL 0, OS Unix.
        #expect(Array(a.prefix(10)) == [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3])
        #expect(a.count < sample.count / 10)
        #expect(try Gzip.decompress(a, source: "a") == sample)
        #expect(try Gzip.decompress(Gzip.compress([]), source: "empty") == [])
    }

    @Test func inflatesConcatenatedMembers() throws {
        let two = Gzip.compress(Array("one ".utf8)) + Gzip.compress(Array("two".utf8))
        #expect(try Gzip.decompress(two, source: "two") == Array("one two".utf8))
    }

    @Test func refusesToInflatePastTheLimit() {
        let bomb = Gzip.compress([UInt8](repeating: 0, count: 1 << 20))
        let error = #expect(throws: MVTError.self) { try Gzip.decompress(bomb, limit: 1 << 19, source: "bomb.mvt.gz") }
        #expect(error?.description == "bomb.mvt.gz: its gzip data inflates to more than 524288 bytes, the limit for one tile (a decompression bomb?)")
        // Through the decoder, with its 64 MiB default.
        let big = Gzip.compress([UInt8](repeating: 0, count: 65 << 20))
        let decodeError = #expect(throws: MVTError.self) { try VectorTileDecoder().decode(big, source: "big.mvt") }
        #expect(decodeError?.description == "big.mvt: its gzip data inflates to more than 64 MiB, the limit for one tile (a decompression bomb?)")
    }

    @Test func refusesDamagedOrTruncatedData() {
        var damaged = Gzip.compress(sample)
        damaged[12] ^= 0xFF
        #expect(throws: MVTError.self) { try Gzip.decompress(damaged, source: "d") }
        let truncated = Array(Gzip.compress(sample).dropLast(4))
        let error = #expect(throws: MVTError.self) { try Gzip.decompress(truncated, source: "t.mvt") }
        #expect(error?.description == "t.mvt: its gzip data ends early (truncated?)")
        let trailing = Gzip.compress(sample) + [0, 0]
        #expect(throws: MVTError.self) { try Gzip.decompress(trailing, source: "x") }
    }
}
