import CCairo
import MapbookData
import MapbookPackage
import MapbookSupport
import Testing

@testable import MapbookRender

/// Pieces of the backdrop's style drawn without a package: offset lines and pattern fills.
@Suite struct BackdropDrawingTests {
    @Test func offsetLinesRunParallelToTheRightOfTheirDirection() {
        // East along y = 10 (y grows down): the right-hand side is below.
        let east = BackdropRenderer.offsetLine([(0, 10), (100, 10)], by: 4, closed: false)
        #expect(east.allSatisfy { abs($0.1 - 14) < 1e-9 })
        // A right-angle turn, east then south: the corner moves inwards (left-down) by 4 on
        // each axis, as a miter of two parallel lines meets.
        let turn = BackdropRenderer.offsetLine([(0, 0), (50, 0), (50, 50)], by: 4, closed: false)
        #expect(abs(turn[1].0 - 46) < 1e-9 && abs(turn[1].1 - 4) < 1e-9, "\(turn)")
        #expect(abs(turn[2].0 - 46) < 1e-9 && abs(turn[2].1 - 50) < 1e-9)
        // A negative offset goes left.
        #expect(BackdropRenderer.offsetLine([(0, 10), (100, 10)], by: -3, closed: false).allSatisfy { abs($0.1 - 7) < 1e-9 })
    }

    /// A sprite icon of 4 x 4 pixels, left half red and right half blue, repeated over a
    /// square: the colours alternate every 2 pixels (at pixel ratio 1), and every 1 pixel
    /// for a 2x icon.
    @Test(arguments: [1.0, 2.0])
    func patternFillsRepeatTheSpriteIcon(iconRatio: Double) throws {
        let sprite = try RasterImage(width: 8, height: 4)
        let source = cairo_create(sprite.surface)!
        cairo_set_source_rgba(source, 1, 0, 0, 1)
        cairo_rectangle(source, 4, 0, 2, 4)
        cairo_fill(source)
        cairo_set_source_rgba(source, 0, 0, 1, 1)
        cairo_rectangle(source, 6, 0, 2, 4)
        cairo_fill(source)
        cairo_destroy(source)
        let icon = SpriteIcon(x: 4, y: 0, width: 4, height: 4, pixelRatio: iconRatio)
        let canvas = try MapCanvas(width: 40, height: 40, extent: BoundingBox(minX: 0, minY: 0, maxX: 40, maxY: 40))
        cairo_rectangle(canvas.context, 10, 10, 20, 20)
        BackdropRenderer.fillWithPattern(icon, of: Sprite(icons: ["x": icon], image: sprite), opacity: 1, 1, canvas.context)
        let period = Int(4 / iconRatio)
        for x in 10..<30 {
            let p = try #require(canvas.pixel(x: x, y: 20))
            let red = (x % period) < period / 2
            #expect(red ? (p.red > 200 && p.blue < 50) : (p.blue > 200 && p.red < 50), "x \(x): \(p)")
        }
        #expect(canvas.pixel(x: 5, y: 5) == RGBAColor(red: 255, green: 255, blue: 255), "the pattern spilled out of the path")
    }
}
