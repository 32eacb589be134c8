import Foundation
import MapbookData
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import MapbookTiles
import Testing

@testable import MapbookRender

/// The backdrop renderer on a real Esri vector tile package: basemap.de's sample cache with
/// its own style (535 layers, legacy filters and functions) and sprite.
@Suite struct BackdropRendererTests {
    static let pictures = NSTemporaryDirectory() + "mapbook-render-tests"

    static func count(_ color: RGBAColor, in canvas: MapCanvas) -> Int {
        countPixels(width: canvas.width, height: canvas.height) { canvas.pixel(x: $0, y: $1) == color }
    }

    @Test(.enabled(if: Fixtures.available, "needs ../shared/fixtures/vtpk-basemapde"))
    func basemapDEDrawsAsItsStyleSays() throws {
        try withTemporaryDirectory { dir in
            try zipStored(folder: Fixtures.path("vtpk-basemapde/sample_cache"), to: dir + "/basemap.vtpk")
            let renderer = try BackdropRenderer.open(try TilePackage(archive: try ZipArchive(path: dir + "/basemap.vtpk")))
            #expect(renderer.sprite != nil, "the style's sprite is read")
            // Germany and the North Sea, at zoom 5-6 (the cache stops at level 4: over-zoomed).
            let box = WebMercator.project(BoundingBox(minX: 3, minY: 47, maxX: 16, maxY: 56))
            let canvas = try MapCanvas(width: 900, height: 900, extent: box)
            renderer.draw(on: canvas)
            try FileManager.default.createDirectory(atPath: Self.pictures, withIntermediateDirectories: true)
            try canvas.write(to: Self.pictures + "/basemap-de.png")
            // The style's colours at this zoom: the land ("Hintergrund" fill), the state border
            // ("Grenzen_Staatsgrenze" line, 2 px) and the big cities ("SiedlungP_*" circles).
            let land = Self.count(RGBAColor(red: 255, green: 253, blue: 238), in: canvas)
            let border = Self.count(RGBAColor(red: 203, green: 159, blue: 230), in: canvas)
            let cities = Self.count(RGBAColor(red: 204, green: 153, blue: 255), in: canvas)
            #expect(land > 200_000, "the land in the style's colour: \(land) pixels")
            #expect(border > 500, "the state border: \(border) pixels")
            #expect(cities > 20, "the cities' circles: \(cities) pixels")
            #expect(Self.count(RGBAColor(red: 255, green: 255, blue: 255), in: canvas) > 50_000, "outside Germany the cache has nothing: the canvas shows")
            // What the style asks that is not drawn is listed, per property.
            #expect(renderer.unsupported.keys.contains("line paint.line-blur"))
            #expect(!renderer.unsupported.keys.contains("symbol layout.text-variable-anchor"))
            #expect(!renderer.unsupported.keys.contains("fill paint.fill-color"))
            #expect(renderer.damage.isEmpty, "\(renderer.damage)")
        }
    }

    /// The package unpacked into a folder (as the fixture comes) draws exactly what the
    /// package file draws, read in place from the folder's files.
    @Test(.enabled(if: Fixtures.available, "needs ../shared/fixtures/vtpk-basemapde"))
    func anUnpackedFolderDrawsAsThePackageFileDoes() throws {
        try withTemporaryDirectory { dir in
            let folder = Fixtures.path("vtpk-basemapde/sample_cache")
            try zipStored(folder: folder, to: dir + "/basemap.vtpk")
            let box = WebMercator.project(BoundingBox(minX: 5, minY: 47, maxX: 15, maxY: 55))
            var pictures: [[UInt8]] = []
            for archive in [try ZipArchive(path: dir + "/basemap.vtpk"), try ZipArchive(folder: folder)] {
                let renderer = try BackdropRenderer.open(try TilePackage(archive: archive))
                #expect(renderer.sprite != nil && renderer.damage.isEmpty, "\(archive.displayPath): \(renderer.damage)")
                let canvas = try MapCanvas(width: 400, height: 400, extent: box)
                renderer.draw(on: canvas)
                pictures.append(try canvas.pngData())
            }
            #expect(pictures[0] == pictures[1])
        }
    }

    /// The decoded tiles are kept: a second frame reads no tile again.
    @Test(.enabled(if: Fixtures.available, "needs ../shared/fixtures/vtpk-basemapde"))
    func tilesAreCachedBetweenFrames() throws {
        try withTemporaryDirectory { dir in
            try zipStored(folder: Fixtures.path("vtpk-basemapde/sample_cache"), to: dir + "/basemap.vtpk")
            let renderer = try BackdropRenderer.open(try TilePackage(archive: try ZipArchive(path: dir + "/basemap.vtpk")))
            let canvas = try MapCanvas(width: 256, height: 256, extent: WebMercator.project(BoundingBox(minX: 5, minY: 48, maxX: 14, maxY: 55)))
            renderer.draw(on: canvas)
            let cached = renderer.cache.count
            #expect(cached > 0)
            renderer.draw(on: canvas)
            #expect(renderer.cache.count == cached)
        }
    }

    /// Labels in Arabic and Devanagari are shaped (HarfBuzz through Pango) with installed fonts:
    /// no character lacks a glyph, and joined Arabic letters draw narrower than the same letters
    /// apart.
    @Test func arabicAndDevanagariShape() throws {
        let canvas = try MapCanvas(width: 400, height: 100, extent: BoundingBox(minX: 0, minY: 0, maxX: 400, maxY: 100))
        for text in ["القاهرة", "नई दिल्ली"] {
            let box = canvas.drawText(text, x: 10, y: 10, size: 24, font: "Noto Sans")
            #expect(box.width > 20)
        }
        let joined = canvas.textSize("سلام", size: 40).width
        let apart = canvas.textSize("س ل ا م", size: 40).width - 3 * canvas.textSize(" ", size: 40).width
        #expect(joined < apart, "joined \(joined), apart \(apart)")
        #expect(canvas.unknownGlyphs("नई दिल्ली القاهرة", size: 20) == 0, "install fonts-noto-core (tools/setup)")
        // The folder is made here too: the test that makes it otherwise may not have run first.
        try FileManager.default.createDirectory(atPath: Self.pictures, withIntermediateDirectories: true)
        try canvas.write(to: Self.pictures + "/scripts.png")
    }
}
