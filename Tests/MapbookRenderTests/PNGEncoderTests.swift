import Foundation
import MapbookData
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing

@testable import MapbookRender

/// PNG files written by `PNGEncoder`, read back by libpng (through Cairo) and by GDAL: the
/// same pixels, opaque canvases as RGB, translucent ones as RGBA with their colours
/// un-premultiplied.
@Suite struct PNGEncoderTests {
    static func drawn(background: RGBAColor) throws -> MapCanvas {
        let canvas = try MapCanvas(width: 97, height: 61, extent: BoundingBox(minX: 0, minY: 0, maxX: 97, maxY: 61), background: background)
        canvas.fillRectangle(x: 5.5, y: 3.25, width: 40, height: 30, color: RGBAColor(red: 200, green: 30, blue: 90, alpha: 160))
        canvas.fillRectangle(x: 30, y: 20, width: 60, height: 35, color: RGBAColor(red: 10, green: 120, blue: 250))
        canvas.draw(Geometry(.point(Position(x: 70, y: 15))), symbol: .simpleMarker(SimpleMarkerSymbol(color: RGBAColor(red: 0, green: 158, blue: 115, alpha: 90), size: 20)))
        return canvas
    }

    @Test(arguments: [RGBAColor(red: 242, green: 239, blue: 233), RGBAColor(red: 0, green: 0, blue: 0, alpha: 0)])
    func pixelsSurviveTheRoundTrip(background: RGBAColor) throws {
        let canvas = try Self.drawn(background: background)
        let png = try canvas.pngData()
        // Colour type in IHDR: 2 (RGB) when opaque, 6 (RGBA) otherwise.
        #expect(png[25] == (background.alpha == 255 ? 2 : 6))
        let back = try RasterImage(png: png)
        #expect(back.width == 97 && back.height == 61)
        for y in 0..<61 {
            for x in 0..<97 {
                let a = try #require(canvas.pixel(x: x, y: y)), b = try #require(back.pixel(x: x, y: y))
                #expect(a.alpha == b.alpha, "alpha at \(x), \(y)")
                // Premultiplied storage loses precision in faint pixels: compare by their alpha.
                let tolerance = a.alpha == 0 ? 255 : 255 / a.alpha + 1
                #expect(abs(a.red - b.red) <= tolerance && abs(a.green - b.green) <= tolerance && abs(a.blue - b.blue) <= tolerance, "\(a) became \(b) at \(x), \(y)")
            }
        }
    }

    @Test(ExternalTools.ogrinfoRequired)
    func gdalReadsTheFile() throws {
        try withTemporaryDirectory { dir in
            try Self.drawn(background: RGBAColor(red: 255, green: 255, blue: 255)).write(to: dir + "/a.png")
            let (status, output) = try ExternalTools.run("/usr/bin/gdalinfo", ["-stats", dir + "/a.png"])
            #expect(status == 0, "\(output)")
            #expect(output.contains("Size is 97, 61") && output.contains("Band 3"), "\(output)")
        }
    }

    /// A package's thumbnail is written row by row: the same pixels, and a redrawn image with
    /// a few rows changed costs a patch of those rows, also inside a base64 data URI.
    @Test(arguments: [RGBAColor(red: 242, green: 239, blue: 233), RGBAColor(red: 0, green: 0, blue: 0, alpha: 0)])
    func aPatchablePNGHasThePixelsAndPatchesByRow(background: RGBAColor) throws {
        let canvas = try Self.drawn(background: background)
        let png = try canvas.pngData(patchable: true)
        let back = try RasterImage(png: png)
        for y in 0..<61 {
            for x in 0..<97 {
                let a = try #require(canvas.pixel(x: x, y: y)), b = try #require(back.pixel(x: x, y: y))
                #expect(a.alpha == b.alpha && (a.alpha == 0 || a == b), "\(a) became \(b) at \(x), \(y)")
            }
        }
        let redrawn = try Self.drawn(background: background)
        redrawn.fillRectangle(x: 60, y: 40, width: 5, height: 3, color: RGBAColor(red: 255, green: 255, blue: 0))
        let changed = try redrawn.pngData(patchable: true)
        func patchSize(_ old: [UInt8], _ new: [UInt8]) throws -> Int {
            try #require(try old.withUnsafeBytes { o in try new.withUnsafeBytes { n in try EntryPatch.make(from: o, to: n, limit: .max, path: "t") } }).count
        }
        let whole = png.count
        #expect(try patchSize(png, changed) < whole / 5, "a patch of 3 changed rows of 61")
        let uri = { (p: [UInt8]) in Array(("{\"thumbnail\":\"" + DataURI.encode(p, mimeType: "image/png") + "\"}").utf8) }
        #expect(try patchSize(uri(png), uri(changed)) < whole / 5, "the same in a data URI")
        // Compressed as one stream, the same change costs most of the file.
        #expect(try patchSize(try canvas.pngData(), try redrawn.pngData()) > whole / 3)
    }
}
