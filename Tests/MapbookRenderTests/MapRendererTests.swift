import Foundation
import MapbookData
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing

@testable import MapbookRender

// Canvases here are 100 x 100 pixels over the world square 0...100, so one world unit is one
// pixel and world (x, y) is pixel (x, 100 - y).

private let white = RGBAColor(red: 255, green: 255, blue: 255)
private let red = RGBAColor(red: 255, green: 0, blue: 0)
private let blue = RGBAColor(red: 0, green: 0, blue: 255)
private let green = RGBAColor(red: 0, green: 160, blue: 0)
private let grey = RGBAColor(red: 128, green: 128, blue: 128)
private let square100 = BoundingBox(minX: 0, minY: 0, maxX: 100, maxY: 100)

private func canvas(_ extent: BoundingBox = square100, width: Int = 100, height: Int = 100) throws -> MapCanvas {
    try MapCanvas(width: width, height: height, extent: extent, background: white)
}

private func ring(_ minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double) -> [Position] {
    [
        Position(x: minX, y: minY), Position(x: maxX, y: minY), Position(x: maxX, y: maxY),
        Position(x: minX, y: maxY), Position(x: minX, y: minY),
    ]
}

private func square(_ minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double) -> Geometry {
    Geometry(.polygon([ring(minX, minY, maxX, maxY)]))
}

private func fill(_ color: RGBAColor) -> Symbol {
    .simpleFill(SimpleFillSymbol(color: color))
}

private func line(_ color: RGBAColor, width: Double, style: String = "esriSLSSolid") -> Symbol {
    .simpleLine(SimpleLineSymbol(style: style, color: color, width: width))
}

/// Whether two colours differ by at most `tolerance` in every channel.
private func close(_ a: RGBAColor?, _ b: RGBAColor, tolerance: Int = 2) -> Bool {
    guard let a else { return false }
    return abs(a.red - b.red) <= tolerance && abs(a.green - b.green) <= tolerance
        && abs(a.blue - b.blue) <= tolerance && abs(a.alpha - b.alpha) <= tolerance
}

/// A small PNG of one colour, made with Cairo.
private func solidPNG(_ color: RGBAColor, size: Int = 4) throws -> [UInt8] {
    let c = try MapCanvas(width: size, height: size, extent: square100, background: color)
    return try c.pngData()
}

@Suite struct MapRendererTests {
    // MARK: Fills

    @Test func filledSquareIsItsColourInsideAndBackgroundOutside() throws {
        let c = try canvas()
        c.draw(square(25, 25, 75, 75), symbol: fill(red))
        #expect(c.pixel(x: 50, y: 50) == red)
        #expect(c.pixel(x: 26, y: 26) == red)
        #expect(c.pixel(x: 10, y: 10) == white)
        #expect(c.pixel(x: 90, y: 50) == white)
    }

    @Test func worldYGrowsUpAndTheExtentIsFittedCentredKeepingItsAspect() throws {
        // A 200 x 100 world on a square canvas: 0.5 px per unit, shown in the middle band.
        let c = try canvas(BoundingBox(minX: 0, minY: 0, maxX: 200, maxY: 100))
        #expect(c.visibleExtent == BoundingBox(minX: 0, minY: -50, maxX: 200, maxY: 150))
        // The top half of the world is drawn in the upper half of the band.
        c.draw(square(0, 50, 200, 100), symbol: fill(red))
        #expect(c.pixel(x: 50, y: 30) == red)
        #expect(c.pixel(x: 50, y: 60) == white)
        #expect(c.pixel(x: 50, y: 10) == white)
    }

    @Test func aHoleStaysBackground() throws {
        let c = try canvas()
        let polygon = Geometry(.polygon([ring(10, 10, 90, 90), ring(40, 40, 60, 60).reversed()]))
        c.draw(polygon, symbol: fill(red))
        #expect(c.pixel(x: 50, y: 50) == white)
        #expect(c.pixel(x: 20, y: 20) == red)
        // Same-winding holes are holes too: the fill rule is even-odd.
        let d = try canvas()
        d.draw(Geometry(.polygon([ring(10, 10, 90, 90), ring(40, 40, 60, 60)])), symbol: fill(red))
        #expect(d.pixel(x: 50, y: 50) == white)
    }

    @Test func multiPolygonsAndCollectionsDrawEveryPart() throws {
        let c = try canvas()
        let collection = Geometry(
            .geometryCollection([
                Geometry(.multiPolygon([[ring(0, 0, 20, 20)], [[Position(x: 30, y: 0), Position(x: 50, y: 0), Position(x: 50, y: 20), Position(x: 30, y: 0)]]])),
                square(60, 60, 80, 80),
            ]))
        c.draw(collection, symbol: fill(blue))
        #expect(c.pixel(x: 10, y: 90) == blue)
        #expect(c.pixel(x: 47, y: 85) == blue)
        #expect(c.pixel(x: 70, y: 30) == blue)
        #expect(c.pixel(x: 25, y: 50) == white)
    }

    @Test func nullFillDrawsOnlyTheOutline() throws {
        let c = try canvas()
        let symbol = Symbol.simpleFill(
            SimpleFillSymbol(style: "esriSFSNull", color: red, outline: SimpleLineSymbol(color: blue, width: 3)))
        c.draw(square(20, 20, 80, 80), symbol: symbol)
        #expect(c.pixel(x: 50, y: 50) == white)
        #expect(c.pixel(x: 20, y: 50) == blue)
    }

    @Test func horizontalHatchLeavesGapsBetweenLines() throws {
        let c = try canvas()
        c.draw(square(0, 0, 100, 100), symbol: .simpleFill(SimpleFillSymbol(style: "esriSFSHorizontal", color: red)))
        let column = (0..<16).map { c.pixel(x: 50, y: $0) }
        #expect(column.contains(red))
        #expect(column.contains(white))
    }

    @Test func positionsFarOutsideTheViewStillFillIt() throws {
        // A zoomed-in view inside a huge polygon: coordinates beyond Cairo's fixed-point range.
        let c = try canvas()
        c.draw(square(-1e12, -1e12, 1e12, 1e12), symbol: fill(red))
        #expect(c.pixel(x: 50, y: 50) == red)
        #expect(c.pixel(x: 0, y: 99) == red)
        let d = try canvas()
        d.draw(Geometry(.lineString([Position(x: -1e13, y: 50), Position(x: 1e13, y: 50)])), symbol: line(blue, width: 3))
        #expect(d.pixel(x: 5, y: 50) == blue)
        #expect(d.pixel(x: 95, y: 49) == blue)
    }

    // MARK: Lines

    @Test func lineWidthInPointsIsDrawnAt96DPI() throws {
        // 3 pt = 4 px, centred on row boundary 50: rows 48...51.
        let c = try canvas()
        c.draw(Geometry(.lineString([Position(x: 10, y: 50), Position(x: 90, y: 50)])), symbol: line(blue, width: 3))
        let rows = (40..<60).filter { c.pixel(x: 50, y: $0) != white }
        #expect(rows == [48, 49, 50, 51])
        #expect(rows.allSatisfy { c.pixel(x: 50, y: $0) == blue })
    }

    @Test func dashedLineHasGapsAndSolidLineHasNone() throws {
        let path = Geometry(.lineString([Position(x: 0, y: 50), Position(x: 100, y: 50)]))
        let solid = try canvas()
        solid.draw(path, symbol: line(blue, width: 1.5))
        let dashed = try canvas()
        dashed.draw(path, symbol: line(blue, width: 1.5, style: "esriSLSDash"))
        let solidRow = (5..<95).map { solid.pixel(x: $0, y: 49) }
        let dashedRow = (5..<95).map { dashed.pixel(x: $0, y: 49) }
        #expect(solidRow.allSatisfy { $0 == blue })
        #expect(dashedRow.contains(blue))
        #expect(dashedRow.contains(white))
    }

    @Test func nanPositionsAreSkipped() throws {
        let c = try canvas()
        let path = Geometry(
            .multiLineString([[Position(x: 10, y: 50), Position(x: .nan, y: .nan), Position(x: 90, y: 50)], [Position(x: .nan, y: 1)]]))
        c.draw(path, symbol: line(blue, width: 3))
        c.draw(Geometry(.point(Position(x: .nan, y: .nan))), symbol: .simpleMarker(SimpleMarkerSymbol(color: red, size: 10)))
        #expect(c.pixel(x: 50, y: 49) == blue)
        #expect(c.pixel(x: 50, y: 10) == white)
    }

    // MARK: Markers

    @Test func circleAndSquareMarkersHaveTheirShapeAndSizeInPoints() throws {
        // 12 pt = 16 px: the square reaches (c+7, c+7); the circle (radius 8) does not.
        let c = try canvas()
        c.draw(Geometry(.point(Position(x: 25, y: 50))), symbol: .simpleMarker(SimpleMarkerSymbol(style: "esriSMSCircle", color: red, size: 12)))
        c.draw(Geometry(.point(Position(x: 75, y: 50))), symbol: .simpleMarker(SimpleMarkerSymbol(style: "esriSMSSquare", color: red, size: 12)))
        #expect(c.pixel(x: 25, y: 50) == red)
        #expect(c.pixel(x: 32, y: 57) == white)
        #expect(c.pixel(x: 82, y: 57) == red)
        #expect(c.pixel(x: 75, y: 60) == white)
    }

    @Test(arguments: ["esriSMSCross", "esriSMSX", "esriSMSDiamond", "esriSMSTriangle"])
    func everyMarkerStyleDrawsAtItsPoint(style: String) throws {
        let c = try canvas()
        let marker = SimpleMarkerSymbol(style: style, color: red, size: 20, outline: SimpleLineSymbol(color: red, width: 2))
        c.draw(Geometry(.multiPoint([Position(x: 50, y: 50)])), symbol: .simpleMarker(marker))
        let nearCentre = (47...52).flatMap { y in (47...52).map { x in c.pixel(x: x, y: y) } }
        #expect(nearCentre.contains(red))
        #expect(c.pixel(x: 50, y: 20) == white)
    }

    @Test func pictureMarkerDrawsItsPNGScaledToItsSizeInPoints() throws {
        var symbol = PictureMarkerSymbol(json: ["type": "esriPMS", "contentType": "image/png"])
        symbol.imageData = Base64.encode(try solidPNG(blue))
        symbol.width = 15  // 20 px
        symbol.height = 15
        let c = try canvas()
        c.draw(Geometry(.point(Position(x: 50, y: 50))), symbol: .pictureMarker(symbol))
        #expect(c.pixel(x: 50, y: 50) == blue)
        #expect(c.pixel(x: 42, y: 42) == blue)
        #expect(c.pixel(x: 50, y: 62) == white)
        #expect(c.warnings.isEmpty)
    }

    @Test(arguments: [
        Base64.encode(Array("not a png at all".utf8)),
        Base64.encode(Array([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) + Array(repeating: 0x41, count: 40)),
        "%%% not base64 %%%",
    ])
    func brokenPictureMarkerDrawsAGreyCircleAndWarns(imageData: String) throws {
        var symbol = PictureMarkerSymbol(json: ["type": "esriPMS", "contentType": "image/png"])
        symbol.imageData = imageData
        symbol.width = 12
        symbol.height = 12
        let c = try canvas()
        c.draw(Geometry(.point(Position(x: 50, y: 50))), symbol: .pictureMarker(symbol))
        c.draw(Geometry(.point(Position(x: 20, y: 20))), symbol: .pictureMarker(symbol))
        #expect(c.pixel(x: 50, y: 50) == grey)
        #expect(c.pixel(x: 20, y: 80) == grey)
        #expect(c.warnings.count == 1)
        #expect(c.warnings.first?.contains("picture marker") == true)
    }

    @Test func pictureClaimingHugeDimensionsIsRefusedBeforeDecoding() throws {
        var png = try solidPNG(blue)
        // IHDR width at bytes 16...19: claim 100000 pixels.
        png.replaceSubrange(16..<20, with: [0x00, 0x01, 0x86, 0xA0])
        #expect(throws: RenderError.self) { try RasterImage(png: png) }
    }

    // MARK: Renderers

    private var materialRenderer: Renderer {
        .uniqueValue(
            UniqueValueRenderer(
                field: "MATERIAL",
                infos: [
                    UniqueValueInfo(value: "DI", symbol: fill(blue)),
                    UniqueValueInfo(value: "PVC", symbol: fill(green)),
                ],
                defaultSymbol: fill(grey)))
    }

    @Test func uniqueValueRendererColoursFeaturesByFieldValueAndUnlistedOnesWithTheDefault() throws {
        let features = [
            MapFeature(geometry: square(0, 0, 30, 100), attributes: ["MATERIAL": .text("DI")]),
            MapFeature(geometry: square(35, 0, 65, 100), attributes: ["MATERIAL": .text("PVC")]),
            MapFeature(geometry: square(70, 0, 100, 100), attributes: ["MATERIAL": .text("Copper")]),
        ]
        let c = try MapDrawing.render(
            [MapLayer(features: features, renderer: materialRenderer)], extent: square100, width: 100, height: 100)
        #expect(c.pixel(x: 15, y: 50) == blue)
        #expect(c.pixel(x: 50, y: 50) == green)
        #expect(c.pixel(x: 85, y: 50) == grey)
    }

    @Test func uniqueValuesMatchAsTextWhateverTheirType() throws {
        var info = UniqueValueInfo(json: ["value": .integer(3)])
        info.symbol = fill(blue)
        let style = LayerStyle(
            renderer: .uniqueValue(UniqueValueRenderer(field: "DIAMETER", infos: [info], defaultSymbol: fill(grey))))
        #expect(style.symbol(for: ["DIAMETER": .integer(3)]) == fill(blue))
        #expect(style.symbol(for: ["DIAMETER": .real(3.0)]) == fill(blue))
        #expect(style.symbol(for: ["DIAMETER": .text("3.0")]) == fill(blue))
        #expect(style.symbol(for: ["diameter": .integer(3)]) == fill(blue))
        #expect(style.symbol(for: ["DIAMETER": .real(3.5)]) == fill(grey))
        #expect(style.symbol(for: ["DIAMETER": .null]) == fill(grey))
        #expect(style.symbol(for: [:]) == fill(grey))
    }

    @Test func uniqueValuesOfSeveralFieldsJoinWithTheDelimiter() throws {
        var renderer = UniqueValueRenderer(
            field: "MATERIAL",
            infos: [UniqueValueInfo(value: "DI, 8", symbol: fill(blue)), UniqueValueInfo(value: "DI, <Null>", symbol: fill(green))])
        renderer.field2 = "DIAMETER"
        renderer.fieldDelimiter = ", "
        let style = LayerStyle(renderer: .uniqueValue(renderer))
        #expect(style.symbol(for: ["MATERIAL": .text("DI"), "DIAMETER": .integer(8)]) == fill(blue))
        #expect(style.symbol(for: ["MATERIAL": .text("DI"), "DIAMETER": .null]) == fill(green))
        #expect(style.symbol(for: ["MATERIAL": .text("DI"), "DIAMETER": .integer(6)]) == nil)
        // Without fieldDelimiter the delimiter is ",".
        renderer.fieldDelimiter = nil
        renderer.uniqueValueInfos = [UniqueValueInfo(value: "PVC,6", symbol: fill(red))]
        #expect(Renderer.uniqueValue(renderer).symbol(for: ["MATERIAL": .text("PVC"), "DIAMETER": .real(6)]) == fill(red))
    }

    private var diameterBreaks: Renderer {
        var renderer = ClassBreaksRenderer(
            field: "DIAMETER", minValue: 0,
            infos: [
                ClassBreakInfo(classMaxValue: 10, label: "0 - 10", symbol: fill(blue)),
                ClassBreakInfo(classMaxValue: 20, label: "10 - 20", symbol: fill(green)),
            ])
        renderer.defaultSymbol = fill(grey)
        return .classBreaks(renderer)
    }

    @Test(arguments: [
        (FieldValue.integer(0), "blue"), (.real(5), "blue"), (.integer(10), "blue"), (.real(10.000001), "green"),
        (.integer(20), "green"), (.text("15"), "green"), (.real(20.5), "grey"), (.real(-0.5), "grey"), (.null, "grey"),
        (.text("wide"), "grey"),
    ])
    func classBreaksPickTheFirstClassWhoseMaximumReachesTheValue(value: FieldValue, expected: String) throws {
        let colours = ["blue": fill(blue), "green": fill(green), "grey": fill(grey)]
        #expect(LayerStyle(renderer: diameterBreaks).symbol(for: ["DIAMETER": value]) == colours[expected])
    }

    @Test func classBreaksDrawTheClassColourOnTheMap() throws {
        let features = [
            MapFeature(geometry: square(0, 0, 50, 100), attributes: ["DIAMETER": .integer(10)]),
            MapFeature(geometry: square(50, 0, 100, 100), attributes: ["DIAMETER": .integer(12)]),
        ]
        let c = try MapDrawing.render(
            [MapLayer(features: features, renderer: diameterBreaks)], extent: square100, width: 100, height: 100)
        #expect(c.pixel(x: 25, y: 50) == blue)
        #expect(c.pixel(x: 75, y: 50) == green)
    }

    @Test func classBreaksNormalizedByFieldDivideFirst() throws {
        var renderer = ClassBreaksRenderer(
            field: "POP", minValue: 0,
            infos: [ClassBreakInfo(classMaxValue: 1, label: "<= 1", symbol: fill(blue)), ClassBreakInfo(classMaxValue: 100, label: "> 1", symbol: fill(green))])
        renderer.normalizationType = "esriNormalizeByField"
        renderer.normalizationField = "AREA"
        let style = LayerStyle(renderer: .classBreaks(renderer))
        #expect(style.symbol(for: ["POP": .integer(50), "AREA": .integer(100)]) == fill(blue))
        #expect(style.symbol(for: ["POP": .integer(500), "AREA": .integer(100)]) == fill(green))
        #expect(style.symbol(for: ["POP": .integer(500), "AREA": .integer(0)]) == nil)
    }

    @Test(.enabled(if: Fixtures.available, "needs ../shared/fixtures/arcgis-webmaps"))
    func realWebMapRendererWithNoFillColourDrawsOnlyItsDottedOutline() throws {
        let map = WebMap(value: try JSONParser.parse(try readFile(Fixtures.path("arcgis-webmaps/wsdot-witpa_itemdata.json"))))
        let layer = try #require(map.operationalLayers?[2].layers?[2])
        let renderer = try #require(layer.renderer)
        let c = try MapDrawing.render(
            [MapLayer(layer, features: [MapFeature(geometry: square(10, 10, 90, 90))])], extent: square100, width: 100, height: 100)
        #expect(renderer.typeName == "simple")
        // "color": null fill; outline [168, 168, 0] esriSLSDot 1.5 pt.
        #expect(c.pixel(x: 50, y: 50) == white)
        let edge = (12..<88).map { c.pixel(x: $0, y: 10) }
        #expect(edge.contains(RGBAColor(red: 168, green: 168, blue: 0)))
        #expect(edge.contains(white))
    }

    // MARK: Layers

    @Test func layerOpacityBlendsTheLayerAsAWhole() throws {
        // Two overlapping squares in one half-opaque layer: the overlap is no darker.
        let features = [MapFeature(geometry: square(10, 10, 60, 60)), MapFeature(geometry: square(40, 40, 90, 90))]
        let c = try MapDrawing.render(
            [MapLayer(features: features, renderer: .simple(SimpleRenderer(symbol: fill(red))), opacity: 0.5)],
            extent: square100, width: 100, height: 100)
        let half = RGBAColor(red: 255, green: 128, blue: 128)
        #expect(close(c.pixel(x: 20, y: 80), half))
        #expect(close(c.pixel(x: 50, y: 50), half))
        #expect(c.pixel(x: 95, y: 95) == white)
    }

    @Test func layersDrawBottomFirstAndHiddenOnesNotAtAll() throws {
        let simple = { (color: RGBAColor) in Renderer.simple(SimpleRenderer(symbol: fill(color))) }
        let everywhere = [MapFeature(geometry: square(0, 0, 100, 100))]
        let c = try MapDrawing.render(
            [
                MapLayer(features: everywhere, renderer: simple(red)),
                MapLayer(features: [MapFeature(geometry: square(0, 0, 50, 100))], renderer: simple(blue)),
                MapLayer(features: everywhere, renderer: simple(green), isVisible: false),
                MapLayer(features: everywhere, renderer: simple(grey), opacity: 0),
            ], extent: square100, width: 100, height: 100)
        #expect(c.pixel(x: 25, y: 50) == blue)
        #expect(c.pixel(x: 75, y: 50) == red)
        #expect(c.warnings.isEmpty)
    }

    @Test func layerWithARendererTypeNotDrawnIsSkippedWithAWarning() throws {
        let heatmap = Renderer(json: ["type": "heatmap"])
        let c = try MapDrawing.render(
            [MapLayer(title: "Trees", features: [MapFeature(geometry: square(0, 0, 100, 100))], renderer: heatmap)],
            extent: square100, width: 100, height: 100)
        #expect(c.pixel(x: 50, y: 50) == white)
        #expect(c.warnings == ["layer 'Trees' is not drawn: its renderer type 'heatmap' is not supported"])
    }

    @Test func operationalLayerVisibilityOpacityAndTransparencyApply() throws {
        var layer = OperationalLayer(id: "a", title: "Mains", path: LayerDataPath(file: "data.gpkg", table: "mains"), visibility: true)
        layer.opacity = 0.8
        layer.layerDefinition = LayerDefinition(drawingInfo: DrawingInfo(renderer: .simple(SimpleRenderer(symbol: fill(red)))))
        layer.layerDefinition?.drawingInfo?.transparency = 50
        let drawn = MapLayer(layer, features: [MapFeature]())
        #expect(abs(drawn.opacity - 0.4) < 1e-9)
        #expect(drawn.isVisible)
        layer.visibility = false
        #expect(!MapLayer(layer, features: [MapFeature]()).isVisible)
    }

    // MARK: Output

    @Test func pngStartsWithTheSignatureAndReadsBackWithTheSameSizeAndPixels() throws {
        let c = try canvas(width: 120, height: 80)
        c.draw(square(0, 0, 50, 100), symbol: fill(red))
        let png = try c.pngData()
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let back = try RasterImage(png: png)
        #expect(back.width == 120)
        #expect(back.height == 80)
        for (x, y) in [(10, 10), (40, 40), (100, 70)] {
            #expect(back.pixel(x: x, y: y) == c.pixel(x: x, y: y))
        }
        // Transparency survives too (this PNG has an alpha channel; the one above has none).
        let swatch = try MapDrawing.swatch(for: fill(red))
        let swatchBack = try RasterImage(png: try swatch.pngData())
        #expect(swatchBack.pixel(x: 0, y: 0)?.alpha == 0)
        #expect(swatchBack.pixel(x: 10, y: 10) == red)
    }

    @Test func writeReplacesTheFileAtomicallyAndLeavesNoTemporaryFile() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/view.png"
            try writeFile(path, "old")
            let c = try canvas()
            try c.write(to: path)
            let written = try readFile(path)
            #expect(written == (try c.pngData()))
            #expect(listTree(dir) == ["view.png"])
            #expect(throws: RenderError.self) { try c.write(to: dir + "/missing/view.png") }
        }
    }

    @Test func thumbnailIsA200By133PNG() throws {
        let layer = MapLayer(
            features: [MapFeature(geometry: square(-1000, -1000, 1000, 1000))],
            renderer: .simple(SimpleRenderer(symbol: fill(blue))))
        let png = try MapDrawing.thumbnail([layer], extent: BoundingBox(minX: -2000, minY: -1000, maxX: 2000, maxY: 1000))
        let image = try RasterImage(png: png)
        #expect(image.width == 200)
        #expect(image.height == 133)
        #expect(image.pixel(x: 100, y: 66) == blue)
        #expect(image.pixel(x: 5, y: 66) == white)
    }

    @Test func swatchesShowFillsLinesAndMarkers() throws {
        let fillSwatch = try MapDrawing.swatch(for: .simpleFill(SimpleFillSymbol(color: red, outline: SimpleLineSymbol(color: blue, width: 0.75))))
        #expect(fillSwatch.pixel(x: 10, y: 10) == red)
        #expect(fillSwatch.pixel(x: 0, y: 0)?.alpha == 0)
        let lineSwatch = try MapDrawing.swatch(for: line(blue, width: 1.5))
        #expect(lineSwatch.pixel(x: 10, y: 10) == blue)
        #expect(lineSwatch.pixel(x: 10, y: 3)?.alpha == 0)
        // A marker larger than the swatch is shrunk to fit inside it.
        let markerSwatch = try MapDrawing.swatch(for: .simpleMarker(SimpleMarkerSymbol(style: "esriSMSSquare", color: green, size: 40)))
        #expect(markerSwatch.pixel(x: 10, y: 10) == green)
        #expect(markerSwatch.pixel(x: 0, y: 0)?.alpha == 0)
    }

    // MARK: Errors

    @Test(arguments: [
        BoundingBox.empty,
        BoundingBox(minX: 5, minY: 5, maxX: 5, maxY: 5),
        BoundingBox(minX: 10, minY: 0, maxX: 0, maxY: 10),
        BoundingBox(minX: .nan, minY: 0, maxX: 10, maxY: 10),
        BoundingBox(minX: 0, minY: 0, maxX: .infinity, maxY: 10),
    ])
    func unusableExtentIsAClearError(extent: BoundingBox) throws {
        let error = try #require(throws: RenderError.self) { try MapCanvas(width: 100, height: 100, extent: extent) }
        #expect(error.operation == "create a canvas")
        #expect(error.kind == .invalidExtent)
    }

    @Test(arguments: [(0, 100), (100, 0), (-5, 10), (40_000, 10)])
    func undrawableCanvasSizeIsAClearError(width: Int, height: Int) throws {
        let error = try #require(throws: RenderError.self) { try MapCanvas(width: width, height: height, extent: square100) }
        #expect(error.kind == .invalidSize)
    }

    @Test func lineExtentIsFittedByItsOtherSide() throws {
        let c = try MapCanvas(width: 100, height: 100, extent: BoundingBox(minX: 50, minY: 0, maxX: 50, maxY: 100))
        #expect(c.pixelsPerUnit == 1)
        #expect(c.visibleExtent == BoundingBox(minX: 0, minY: 0, maxX: 100, maxY: 100))
    }
}
