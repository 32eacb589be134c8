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
        #expect(error?.kind == .decompressionBomb)
        #expect(error?.description.hasPrefix("bomb.mvt.gz: ") == true)
        // Through the decoder, with its 64 MiB default.
        let big = Gzip.compress([UInt8](repeating: 0, count: 65 << 20))
        let decodeError = #expect(throws: MVTError.self) { try VectorTileDecoder().decode(big, source: "big.mvt") }
        #expect(decodeError?.kind == .decompressionBomb)
        #expect(decodeError?.description.hasPrefix("big.mvt: ") == true)
    }

    @Test func refusesDamagedOrTruncatedData() {
        var damaged = Gzip.compress(sample)
        damaged[12] ^= 0xFF
        #expect { try Gzip.decompress(damaged, source: "d") } throws: { ($0 as? MVTError)?.kind == .damagedGzip }
        let truncated = Array(Gzip.compress(sample).dropLast(4))
        let error = #expect(throws: MVTError.self) { try Gzip.decompress(truncated, source: "t.mvt") }
        #expect(error?.kind == .truncatedGzip)
        #expect(error?.description.hasPrefix("t.mvt: ") == true)
        let trailing = Gzip.compress(sample) + [0, 0]
        #expect { try Gzip.decompress(trailing, source: "x") } throws: { ($0 as? MVTError)?.kind == .trailingData }
    }
}
