import MapbookData
import MapbookSupport
import Testing

@testable import MapbookViewer

@Suite struct MapViewTests {
    /// Zoom level n of a Web Mercator backdrop is 1:591,657,527.59 / 2^n at 96 DPI: the scale
    /// of a view whose pixels are that level's tile pixels.
    @Test(arguments: [0, 5, 12, 16, 20])
    func scalesFollowEsriTilingSchemes(level: Int) throws {
        let metresPerPixel = 156_543.033_928_041 / Double(1 << level)
        let box = BoundingBox(minX: 0, minY: 0, maxX: metresPerPixel * 256, maxY: metresPerPixel * 256)
        let view = try MapView(extent: box, width: 256, height: 256)
        let expected = 591_657_527.591_555 / Double(1 << level)
        #expect(abs(view.scale - expected) / expected < 1e-9)
        #expect(abs(view.zoom - Double(level)) < 1e-9)
        // At twice the DPI the same scale shows half the ground per pixel.
        let sharp = try MapView(center: view.center, scale: view.scale, width: 256, height: 256, dpi: 192)
        #expect(abs(sharp.resolution * 2 - view.resolution) < 1e-9 * view.resolution)
    }

    @Test func anExtentIsFittedWholeAndCentred() throws {
        let view = try MapView(extent: BoundingBox(minX: 0, minY: 0, maxX: 1000, maxY: 100), width: 200, height: 200)
        func near(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-9 }
        #expect(near(view.resolution, 5), "the wider axis decides")
        #expect(view.center == Position(x: 500, y: 50))
        #expect(near(view.extent.minX, 0) && near(view.extent.maxX, 1000) && near(view.extent.minY, -450) && near(view.extent.maxY, 550))
        let corner = view.position(pixelX: 0, pixelY: 0)
        #expect(near(corner.x, 0) && near(corner.y, 550), "pixels count from the top left")
        let back = view.pixel(of: Position(x: 250, y: 50))
        #expect(near(back.x, 50) && near(back.y, 100))
    }

    /// The error a view's construction throws, if any.
    static func failure(_ make: () throws -> MapView) -> ViewerError? {
        do {
            _ = try make()
            return nil
        } catch {
            return error as? ViewerError
        }
    }

    @Test func viewsThatCannotBeDrawnAreUsageErrors() {
        let box = BoundingBox(minX: 0, minY: 0, maxX: 10, maxY: 10)
        let failures = [
            Self.failure { try MapView(extent: box, width: 16_385, height: 10) },
            Self.failure { try MapView(extent: box, width: 0, height: 10) },
            Self.failure { try MapView(center: Position(x: 0, y: 0), scale: 0, width: 10, height: 10) },
            Self.failure { try MapView(center: Position(x: 0, y: 0), scale: -5, width: 10, height: 10) },
            Self.failure { try MapView(center: Position(x: 0, y: 0), scale: .nan, width: 10, height: 10) },
            Self.failure { try MapView(extent: BoundingBox(minX: 10, minY: 0, maxX: 0, maxY: 10), width: 10, height: 10) },
            Self.failure { try MapView(extent: BoundingBox(minX: 0, minY: 0, maxX: 0, maxY: 0), width: 10, height: 10) },
            Self.failure { try MapView(extent: box, width: 10, height: 10, dpi: 0) },
        ]
        for (i, failure) in failures.enumerated() {
            #expect(failure?.kind == .invalidView && failure?.isUsage == true, "case \(i)")
        }
        #expect(Self.failure { try MapView(extent: box, width: 16_384, height: 1) } == nil)
    }
}
