import CMapbookLazy
import MapbookData
import MapbookSupport
import Testing

@testable import MapbookRender

/// Label placement as MapLibre does it: variable anchors tried in turn, text and icon placed
/// together unless one is optional, and wrapped text standing where its anchor says.
@Suite struct LabelPlacerTests {
    static func label(_ text: String, x: Double, y: Double, anchor: String = "center", maxWidth: Double = 0) -> LabelPlacer.Label {
        LabelPlacer.Label(
            text: text, font: "Noto Sans", size: 16, maxWidth: maxWidth, letterSpacing: 0, align: 1, x: x, y: y, angle: 0,
            color: (1, 0, 0, 1), haloWidth: 0, halo: (0, 0, 0, 0), anchor: anchor, offset: (0, 0), padding: 2,
            allowOverlap: false, ignorePlacement: false, icon: nil, iconScale: 1, iconOpacity: 1)
    }

    /// The columns holding red text pixels on a canvas.
    static func redColumns(_ canvas: MapCanvas) -> ClosedRange<Int>? {
        var columns: [Int] = []
        for x in 0..<canvas.width {
            for y in 0..<canvas.height {
                if let p = canvas.pixel(x: x, y: y), p.red > 180, p.green < 100 { columns.append(x); break }
            }
        }
        return columns.isEmpty ? nil : columns.min()!...columns.max()!
    }

    @Test func aCollidingLabelTriesItsOtherAnchors() throws {
        let canvas = try MapCanvas(width: 400, height: 200, extent: BoundingBox(minX: 0, minY: 0, maxX: 400, maxY: 200))
        var placer = LabelPlacer(width: 400, height: 200)
        let first = Self.label("Hamburg", x: 200, y: 100, anchor: "center")
        let fixed = Self.label("Altona", x: 200, y: 100, anchor: "center")
        var variable = fixed
        variable.variants = [(anchor: "left", offset: (4, 0)), (anchor: "right", offset: (-4, 0))]
        let (placed, _) = placer.place([[first], [fixed], [variable]], context: canvas.context)
        #expect(placed[0].count == 1)
        #expect(placed[1].isEmpty, "a label with one place over another was placed")
        let moved = try #require(placed[2].first, "the label with variable anchors found no place")
        // "left": the text starts right of the point, four ems on.
        #expect(moved.offset.0 >= 60, "\(moved.offset)")
        LabelPlacer.draw(placed, context: canvas.context, sprite: nil)
    }

    /// A label wrapped at a width and centred in it stands at its anchor: its text begins at
    /// the point for a "left" anchor, whatever the wrap width.
    @Test func wrappedTextStandsWhereItsAnchorSays() throws {
        for maxWidth in [0.0, 300.0] {
            let canvas = try MapCanvas(width: 400, height: 100, extent: BoundingBox(minX: 0, minY: 0, maxX: 400, maxY: 100))
            var placer = LabelPlacer(width: 400, height: 100)
            let (placed, _) = placer.place([[Self.label("München", x: 50, y: 50, anchor: "left", maxWidth: maxWidth)]], context: canvas.context)
            LabelPlacer.draw(placed, context: canvas.context, sprite: nil)
            let columns = try #require(Self.redColumns(canvas))
            #expect(abs(columns.lowerBound - 50) <= 2, "wrap width \(maxWidth): text starts at \(columns.lowerBound)")
        }
    }

    @Test func textAndIconGoTogetherUnlessOneIsOptional() throws {
        let sprite = try RasterImage(width: 16, height: 16)
        let icon = SpriteIcon(x: 0, y: 0, width: 16, height: 16, pixelRatio: 1)
        let canvas = try MapCanvas(width: 400, height: 200, extent: BoundingBox(minX: 0, minY: 0, maxX: 400, maxY: 200))
        for optional in [false, true] {
            var placer = LabelPlacer(width: 400, height: 200)
            // A label over the icon's place: the text of the next label stands clear, its icon does not.
            let blocker = Self.label("X", x: 100, y: 100)
            var both = Self.label("Bahnhof", x: 100, y: 100, anchor: "left")
            both.offset = (1, 0)
            both.icon = icon
            both.iconOptional = optional
            let (placed, _) = placer.place([[blocker], [both]], context: canvas.context)
            if optional {
                let label = try #require(placed[1].first)
                #expect(label.layout != nil && !label.showsIcon, "the optional icon was not left out alone")
            } else {
                #expect(placed[1].isEmpty, "text was placed without its icon")
            }
            LabelPlacer.draw(placed, context: canvas.context, sprite: sprite)
        }
    }
}

/// Labels that follow their line, character by character.
@Suite struct CurvedLabelTests {
    static func label(_ text: String, along path: LabelPath, at distance: Double) -> LabelPlacer.Label {
        var label = LabelPlacerTests.label(text, x: 0, y: 0)
        label.path = path
        label.pathDistance = distance
        return label
    }

    @Test func charactersFollowAStraightLineOneAfterAnother() throws {
        let canvas = try MapCanvas(width: 400, height: 200, extent: BoundingBox(minX: 0, minY: 0, maxX: 400, maxY: 200))
        var placer = LabelPlacer(width: 400, height: 200)
        var missing = 0
        let line = LabelPath([(20, 100), (380, 100)])
        let glyphs = try #require(placer.placeAlong(line, Self.label("Mississippi", along: line, at: 180), context: canvas.context, missingGlyphs: &missing))
        #expect(glyphs.count == 11)
        let xs = glyphs.map(\.x)
        #expect(xs == xs.sorted() && Set(xs).count == xs.count, "\(xs)")
        #expect(glyphs.allSatisfy { abs($0.y - 100) < 0.001 && abs($0.angle) < 1e-9 })
        // Centred on the anchor's distance: the middle of the word near x = 200.
        #expect(abs((xs.first! + xs.last!) / 2 - 200) < 12, "\(xs)")
        LabelPlacer.drawAlong(glyphs, Self.label("Mississippi", along: line, at: 180), context: canvas.context)
    }
}

extension CurvedLabelTests {
    /// A word does not go round a hairpin (MapLibre's `text-max-angle`), nor off the line's
    /// end; a word longer than its line is not placed.
    @Test func aWordDoesNotGoRoundAHairpinOrOffTheLine() throws {
        let canvas = try MapCanvas(width: 400, height: 200, extent: BoundingBox(minX: 0, minY: 0, maxX: 400, maxY: 200))
        var placer = LabelPlacer(width: 400, height: 200)
        var missing = 0
        let hairpin = LabelPath([(100, 100), (200, 100), (100, 101)])
        #expect(placer.placeAlong(hairpin, Self.label("Hairpin", along: hairpin, at: 100), context: canvas.context, missingGlyphs: &missing) == nil)
        let short = LabelPath([(100, 150), (130, 150)])
        #expect(placer.placeAlong(short, Self.label("Mississippi", along: short, at: 15), context: canvas.context, missingGlyphs: &missing) == nil)
        // A gentle bend is followed: the characters turn with it.
        let bend = LabelPath([(20, 60), (200, 60), (380, 120)])
        let glyphs = try #require(placer.placeAlong(bend, Self.label("Riverside Drive", along: bend, at: 190), context: canvas.context, missingGlyphs: &missing))
        #expect(abs(glyphs.first!.angle) < 0.01 && glyphs.last!.angle > 0.2, "\(glyphs.map(\.angle))")
        for glyph in glyphs { mapbook_text_layout_free(glyph.layout) }
    }
}
