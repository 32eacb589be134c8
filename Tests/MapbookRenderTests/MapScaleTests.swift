import MapbookData
import MapbookPackage
import MapbookSupport
import Testing

@testable import MapbookRender

/// Scales of views, layers' scale ranges, and thumbnail symbols.
@Suite struct MapScaleTests {
    @Test func aViewsScaleIsThatOfItsLongerSideAt96DPI() {
        // A pixel is 0.0254 / 96 m: at 1:100,000 it covers 26.46 m, and 200 of them 5291.7 m.
        let across = 200 * 0.0254 / 96 * 100_000
        let extent = BoundingBox(minX: 0, minY: 0, maxX: across, maxY: 100)
        #expect(abs(MapScale.scale(of: extent, width: 200, height: 133, metresPerUnit: 1) - 100_000) < 1e-6)
        // The taller axis decides when the extent is taller than the view.
        let tall = BoundingBox(minX: 0, minY: 0, maxX: 100, maxY: across * 133 / 200)
        #expect(abs(MapScale.scale(of: tall, width: 200, height: 133, metresPerUnit: 1) - 100_000) < 1e-6)
    }

    @Test(arguments: [
        (nil, nil, 1e9, true), (50_000, nil, 100_000, false), (50_000, nil, 50_000, true), (0, 0, 1e9, true),
        (nil, 10_000, 5_000, false), (nil, 10_000, 10_000, true), (200_000, 10_000, 100_000, true),
    ] as [(Double?, Double?, Double, Bool)])
    func layersShowWithinTheirScaleRange(minScale: Double?, maxScale: Double?, scale: Double, shown: Bool) {
        var layer = OperationalLayer(json: ["id": "l"])
        layer.minScale = minScale
        layer.maxScale = maxScale
        #expect(layer.isVisible(atScale: scale) == shown)
    }

    @Test func thumbnailsDrawMarkersAtAThirdAndLinesAtHalfWidth() {
        let marker = Symbol.simpleMarker(SimpleMarkerSymbol(color: RGBAColor(red: 0, green: 0, blue: 0), size: 12, outline: SimpleLineSymbol(color: RGBAColor(red: 1, green: 1, blue: 1), width: 1.5)))
        let renderer = Renderer.uniqueValue(UniqueValueRenderer(
            field: "K", infos: [UniqueValueInfo(value: "a", symbol: marker)],
            defaultSymbol: .simpleLine(SimpleLineSymbol(color: RGBAColor(red: 0, green: 0, blue: 0), width: 3))))
        guard case .uniqueValue(let small) = renderer.scaledForThumbnail(),
            case .simpleMarker(let m)? = small.uniqueValueInfos?.first?.symbol, case .simpleLine(let l)? = small.defaultSymbol
        else { Issue.record("not scaled in place"); return }
        #expect(m.size == 4 && m.outline?.width == 0.5 && l.width == 1.5)
    }
}
