import Foundation
import MapbookTestSupport
import MapbookTiles
import Testing

@testable import MapbookRender

/// Glyphs `create` writes for MapLibre: the same format and metrics as the glyphs Esri ships
/// in a real vector tile package (basemap.de's Noto Sans Bold, made by Esri's tools), so that
/// labels place and draw the same.
@Suite struct GlyphRasterizerTests {
    @Test func aRangeRoundTripsThroughTheGlyphFormat() throws {
        let range = GlyphRasterizer(family: "Noto Sans").range(start: 0, fontStack: "Noto Sans Regular")
        let decoded = try GlyphRange.decode(range.encoded(), source: "0-255.pbf")
        #expect(decoded == range)
        #expect(decoded.name == "0-255")
        let a = try #require(decoded.glyphs.first { $0.id == 65 })
        #expect(a.bitmap.count == Int(a.width + 6) * Int(a.height + 6))
        // Inside the stroke the distance is above the outline's 192; far outside it is 0.
        #expect(a.bitmap.contains { $0 > 200 } && a.bitmap.contains { $0 < 50 })
        let space = try #require(decoded.glyphs.first { $0.id == 32 })
        #expect(space.bitmap.isEmpty && space.advance > 3)
        #expect(!decoded.glyphs.contains { $0.id < 32 }, "no control characters")
    }

    @Test(Fixtures.required)
    func metricsAgreeWithTheGlyphsEsriShips() throws {
        let path = Fixtures.path("vtpk-basemapde/sample_cache/p12/resources/fonts/Noto Sans Bold/0-255.pbf")
        let esri = try GlyphRange.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        let ours = GlyphRasterizer(family: "Noto Sans", bold: true).range(start: 0, fontStack: "Noto Sans Bold")
        var compared = 0
        // Letters: punctuation such as the grave accent differs between Noto Sans versions.
        for theirs in esri.glyphs where (65...90).contains(theirs.id) || (97...122).contains(theirs.id) {
            guard let mine = ours.glyphs.first(where: { $0.id == theirs.id }) else {
                Issue.record("no glyph \(theirs.id)")
                continue
            }
            compared += 1
            #expect(abs(Int(mine.advance) - Int(theirs.advance)) <= 1, "advance of \(theirs.id)")
            #expect(abs(Int(mine.width) - Int(theirs.width)) <= 1 && abs(Int(mine.height) - Int(theirs.height)) <= 1, "size of \(theirs.id)")
            #expect(abs(Int(mine.left) - Int(theirs.left)) <= 1 && abs(Int(mine.top) - Int(theirs.top)) <= 1, "place of \(theirs.id): \(mine.left),\(mine.top) against \(theirs.left),\(theirs.top)")
        }
        #expect(compared > 40)
    }
}
