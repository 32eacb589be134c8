import MapbookData
import MapbookPackage
import MapbookSupport
import Testing

@testable import MapbookRender

/// Markers on a PNG canvas are stamped and composited front to back; the same markers on a
/// vector canvas are Cairo paths drawn in order. Both must show the same picture: the same
/// colours on top where markers overlap, within the quarter-pixel placement of stamps.
@Suite struct MarkerStampTests {
    static let extent = BoundingBox(minX: 0, minY: 0, maxX: 300, maxY: 200)

    /// `count` overlapping markers of four looks (a translucent one and outlined ones) at
    /// fractional places, in a fixed pseudo-random order.
    static func layer(opacity: Double, count: Int) -> MapLayer {
        var state: UInt64 = 42
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        let features = (0..<count).map { i in
            MapFeature(geometry: Geometry(.point(Position(x: next() * 300, y: next() * 200))), attributes: ["KIND": .integer(Int64(i % 4))])
        }
        let outline = SimpleLineSymbol(color: RGBAColor(red: 20, green: 20, blue: 20), width: 1)
        let infos = [
            UniqueValueInfo(value: "0", symbol: .simpleMarker(SimpleMarkerSymbol(color: RGBAColor(red: 230, green: 159, blue: 0), size: 9, outline: outline))),
            UniqueValueInfo(value: "1", symbol: .simpleMarker(SimpleMarkerSymbol(style: "esriSMSSquare", color: RGBAColor(red: 0, green: 114, blue: 178), size: 7))),
            UniqueValueInfo(value: "2", symbol: .simpleMarker(SimpleMarkerSymbol(style: "esriSMSTriangle", color: RGBAColor(red: 0, green: 158, blue: 115, alpha: 128), size: 11, outline: outline))),
            UniqueValueInfo(value: "3", symbol: .simpleMarker(SimpleMarkerSymbol(style: "esriSMSDiamond", color: RGBAColor(red: 204, green: 121, blue: 167), size: 6))),
        ]
        return MapLayer(features: features, renderer: .uniqueValue(UniqueValueRenderer(field: "KIND", infos: infos)), opacity: opacity)
    }

    /// Many markers (composited front to back), a few (straight over the image, in order),
    /// and many in a layer drawn at an opacity (stamps painted into Cairo's group).
    @Test(arguments: [(1.0, 3000), (1.0, 200), (0.6, 3000)])
    func stampedMarkersShowWhatTheirPathsShow(opacity: Double, count: Int) throws {
        let stamped = try MapCanvas(width: 300, height: 200, extent: Self.extent)
        MapDrawing.draw([Self.layer(opacity: opacity, count: count)], on: stamped)
        #expect(!stamped.stampList.isEmpty || opacity < 1, "the markers were not stamped")
        let paths = try MapCanvas(width: 300, height: 200, extent: Self.extent, format: .svg)
        MapDrawing.draw([Self.layer(opacity: opacity, count: count)], on: paths)
        #expect(paths.stampList.isEmpty, "a vector canvas stamped")
        let drawn = try paths.raster()
        var differing = 0, total = 0
        for y in 0..<200 {
            for x in 0..<300 {
                let a = try #require(stamped.pixel(x: x, y: y)), b = try #require(drawn.pixel(x: x, y: y))
                total += abs(a.red - b.red) + abs(a.green - b.green) + abs(a.blue - b.blue)
                if max(abs(a.red - b.red), abs(a.green - b.green), abs(a.blue - b.blue)) > 64 { differing += 1 }
            }
        }
        // Stamps stand up to an eighth of a pixel from the exact place: edges differ a little,
        // no marker is missing, in the wrong order or the wrong colour.
        #expect(Double(differing) / 60_000 < 0.02, "\(differing) pixels differ by more than 64")
        #expect(Double(total) / 60_000 / 3 < 6, "mean difference \(Double(total) / 180_000) per channel")
    }
}
