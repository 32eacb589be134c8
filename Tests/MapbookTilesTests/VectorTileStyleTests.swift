import Foundation
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing

@testable import MapbookTiles
import MapbookInspection

/// MapLibre styles from web map renderers.
@Suite struct VectorTileStyleTests {
    static let blue = RGBAColor(red: 0, green: 114, blue: 178)
    static let orange = RGBAColor(red: 213, green: 94, blue: 0, alpha: 128)

    func layer(_ style: JSONObject, _ id: String) -> JSONObject? {
        style.array("layers")?.compactMap(\.objectValue).first { $0.string("id") == id }
    }

    @Test func simpleRenderersBecomePlainPaintProperties() throws {
        let fill = Symbol.simpleFill(SimpleFillSymbol(json: [
            "type": "esriSFS", "style": "esriSFSSolid", "color": [0, 114, 178, 255],
            "outline": ["type": "esriSLS", "style": "esriSLSSolid", "color": [0, 0, 0, 255], "width": 1.5],
        ]))
        let line = Symbol.simpleLine(SimpleLineSymbol(style: "esriSLSDash", color: Self.orange, width: 3))
        let point = Symbol.simpleMarker(SimpleMarkerSymbol(color: Self.blue, size: 9, outline: SimpleLineSymbol(color: RGBAColor(red: 255, green: 255, blue: 255), width: 0.75)))
        let style = VectorTileStyle(name: "Test", layers: [
            .init(sourceLayer: "parcels", geometry: .polygon, renderer: .simple(SimpleRenderer(symbol: fill)), opacity: 0.8, minZoom: 12),
            .init(sourceLayer: "roads", geometry: .line, renderer: .simple(SimpleRenderer(symbol: line)), maxZoom: 16),
            .init(sourceLayer: "poi", geometry: .point, renderer: .simple(SimpleRenderer(symbol: point))),
        ], minZoom: 10, maxZoom: 16, attribution: "Tests").json

        #expect(style.int("version") == 8)
        #expect(style["glyphs"] == nil && style["sprite"] == nil)
        #expect(style.object("sources")?.object("esri") == ["type": "vector", "url": "../../", "minzoom": 10, "maxzoom": 16, "attribution": "Tests"])
        #expect(style.array("layers")?.compactMap { $0.objectValue?.string("id") } == ["background", "parcels", "parcels/outline", "roads", "poi"])

        let parcels = try #require(layer(style, "parcels"))
        #expect(parcels.string("type") == "fill" && parcels.string("source") == "esri" && parcels.string("source-layer") == "parcels")
        #expect(parcels.int("minzoom") == 12 && parcels["maxzoom"] == nil)
        #expect(parcels.object("paint") == ["fill-color": "#0072b2", "fill-opacity": 0.8, "fill-outline-color": "#000000"])
        // 1.5 pt is 2 px: wider than fill-outline-color's hairline, so a line layer draws it.
        #expect(layer(style, "parcels/outline")?.object("paint") == ["line-color": "#000000", "line-width": 2, "line-opacity": 0.8])

        let roads = try #require(layer(style, "roads"))
        #expect(roads.int("maxzoom") == 17)  // shown through zoom 16
        #expect(roads.object("paint") == ["line-color": "rgba(213,94,0,0.502)", "line-width": 4, "line-opacity": 1, "line-dasharray": [4, 3]])

        let poi = try #require(layer(style, "poi"))
        #expect(poi.string("type") == "circle")
        #expect(poi.object("paint")?["circle-radius"] == 6)
        #expect(poi.object("paint")?["circle-color"] == "#0072b2")
        #expect(poi.object("paint")?["circle-stroke-width"] == 1)
    }

    @Test func uniqueValuesBecomeAMatchAndUnlistedValuesAreHiddenWithoutADefault() throws {
        func marker(_ c: RGBAColor) -> Symbol { .simpleMarker(SimpleMarkerSymbol(color: c, size: 6)) }
        let renderer = UniqueValueRenderer(field: "kind", infos: [
            UniqueValueInfo(value: "hydrant", symbol: marker(Self.blue)),
            UniqueValueInfo(value: "valve", symbol: marker(Self.orange)),
        ])
        let style = VectorTileStyle(name: "T", layers: [.init(sourceLayer: "poi", geometry: .point, renderer: .uniqueValue(renderer))]).json
        let poi = try #require(layer(style, "poi"))
        let key: JSONValue = ["to-string", ["get", "kind"]]
        #expect(poi["filter"] == ["match", key, ["hydrant", "valve"], true, false])
        #expect(poi.object("paint")?["circle-color"] == ["match", key, "hydrant", "#0072b2", "valve", "rgba(213,94,0,0.502)", "#0072b2"])
        #expect(poi.object("paint")?["circle-radius"] == 4)  // the same for both classes: a plain value

        // With a default symbol nothing is hidden, and two fields are joined by the delimiter.
        var two = renderer
        two.field2 = "size"
        two.fieldDelimiter = "|"
        two.defaultSymbol = marker(RGBAColor(red: 1, green: 2, blue: 3))
        let styled = try #require(layer(VectorTileStyle(name: "T", layers: [.init(sourceLayer: "poi", geometry: .point, renderer: .uniqueValue(two))]).json, "poi"))
        #expect(styled["filter"] == nil)
        let joined: JSONValue = ["concat", ["to-string", ["get", "kind"]], "|", ["to-string", ["get", "size"]]]
        #expect(styled.object("paint")?["circle-color"] == ["match", joined, "hydrant", "#0072b2", "valve", "rgba(213,94,0,0.502)", "#010203"])
    }

    @Test func classBreaksBecomeAStepWhoseStopsFollowEachClassMaximum() throws {
        func line(_ width: Double) -> Symbol { .simpleLine(SimpleLineSymbol(color: Self.blue, width: width)) }
        let renderer = ClassBreaksRenderer(field: "diameter", minValue: 0, infos: [
            ClassBreakInfo(classMaxValue: 12, label: "large", symbol: line(3)),
            ClassBreakInfo(classMaxValue: 6, label: "small", symbol: line(0.75)),
        ])
        let style = VectorTileStyle(name: "T", layers: [.init(sourceLayer: "mains", geometry: .line, renderer: .classBreaks(renderer))]).json
        let mains = try #require(layer(style, "mains"))
        // The diameter as a number, or the lowest number when it has none (null, not a number).
        guard case .classBreaks(let breaks) = RendererClasses(.classBreaks(renderer)).selector else { Issue.record("not class breaks"); return }
        let input = VectorTileStyle.classBreakValue(breaks)
        let x: JSONValue = ["var", "x"]
        // A class includes its maximum: 6 is small, anything above 6 is large.
        #expect(mains.object("paint")?["line-width"] == ["let", "x", input, ["step", x, 1, .double(6.0.nextUp), 4]])
        #expect(mains.object("paint")?["line-color"] == "#0072b2")
        // Outside every class (and without a value): no default symbol, so not drawn.
        #expect(mains["filter"] == ["let", "x", input, ["case", ["<", x, 0], false, [">", x, 12], false, true]])
    }

    @Test func fillsWithoutAFillColourOrWithANullStyleAreTransparent() throws {
        let hollow = Symbol.simpleFill(SimpleFillSymbol(json: ["type": "esriSFS", "style": "esriSFSNull", "outline": ["type": "esriSLS", "color": [0, 0, 0, 255], "width": 0.75]]))
        let style = VectorTileStyle(name: "T", layers: [.init(sourceLayer: "zones", geometry: .polygon, renderer: .simple(SimpleRenderer(symbol: hollow)))]).json
        #expect(layer(style, "zones")?.object("paint")?["fill-color"] == "rgba(0,0,0,0)")
        #expect(layer(style, "zones/outline") == nil)  // one pixel: the fill's outline draws it
    }

    @Test func aPackageStyleIsValidJSONAndDrawsOnlyLayersTheTilesHold() throws {
        try withTemporaryDirectory { dir in
            let style = VectorTileStyle(name: "Backdrop", layers: [
                .init(sourceLayer: "parcels", geometry: .polygon, renderer: .uniqueValue(UniqueValueRenderer(field: "kind", infos: [
                    UniqueValueInfo(value: "park", symbol: .simpleFill(SimpleFillSymbol(json: ["type": "esriSFS", "style": "esriSFSSolid", "color": [200, 230, 190, 255]]))),
                ], defaultSymbol: .simpleFill(SimpleFillSymbol(json: ["type": "esriSFS", "style": "esriSFSSolid", "color": [250, 250, 245, 255]]))))),
                .init(sourceLayer: "roads", geometry: .line),
                .init(sourceLayer: "poi", geometry: .point, minZoom: 10),
            ], minZoom: 8, maxZoom: 11)
            var description = TestTiles.description(minLOD: 8, maxLOD: 11)
            description.style = style.json
            let writer = try VectorTilePackageWriter(path: dir + "/b.vtpk", description: description)
            for c in TestTiles.coordinates(minZoom: 8, maxZoom: 11) { try writer.addTile(TestTiles.gzipped(c), at: c) }
            try writer.finish()

            let archive = try ZipArchive(path: dir + "/b.vtpk")
            let written = try #require(try JSONParser.parse(try archive.read(archive.entry(named: "p12/resources/styles/root.json")!)).objectValue)
            #expect(written.int("version") == 8)
            #expect(written["glyphs"] == nil && written["sprite"] == nil)
            let layers = (written.array("layers") ?? []).compactMap(\.objectValue)
            #expect(layers.map { $0.string("id")! } == ["background", "parcels", "roads", "poi"])
            #expect(Set(layers.map { $0.string("id")! }).count == layers.count)
            for layer in layers {
                let type = try #require(layer.string("type"))
                #expect(["background", "fill", "line", "circle"].contains(type))
                #expect((layer.object("paint") ?? JSONObject()).keys.allSatisfy { $0.hasPrefix(type + "-") }, "\(layer)")
                if type != "background" { #expect(layer.string("source") == "esri") }
            }

            // Every source layer is in the tiles themselves, not only in the metadata.
            let reader = try VectorTilePackageReader(path: dir + "/b.vtpk")
            var inTiles = Set<String>()
            for c in try reader.tileCoordinates() {
                let decoded = try VectorTileDecoder().decode(try #require(try reader.tile(at: c)), source: "\(c)")
                inTiles.formUnion(decoded.tile.layers.map(\.name))
            }
            let sourceLayers = Set(layers.compactMap { $0.string("source-layer") })
            #expect(sourceLayers == ["parcels", "roads", "poi"])
            #expect(sourceLayers.isSubset(of: inTiles))
            #expect(sourceLayers.isSubset(of: Set(reader.metadata.layers.map(\.id))))
            #expect(PackageValidator.validate(path: dir + "/b.vtpk").diagnostics.isEmpty)
        }
    }
}
