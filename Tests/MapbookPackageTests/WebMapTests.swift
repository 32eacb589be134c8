import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing

/// Keys must come back in the same order, recursively.
func sameKeyOrder(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case let (.object(x), .object(y)):
        return x.keys == y.keys && x.keys.allSatisfy { sameKeyOrder(x[$0]!, y[$0]!) }
    case let (.array(x), .array(y)):
        return x.count == y.count && zip(x, y).allSatisfy(sameKeyOrder)
    default:
        return true
    }
}

@Suite struct WebMapTests {
    static let fixtures = ["wsdot-layer-list_webmap.json", "wsdot-witpa_itemdata.json", "arcgis-rest-js_webmap_alt-fuel.json"]

    @Test(Fixtures.required, arguments: fixtures)
    func realWebMapsRoundTripWithoutLosingOrChangingAKey(_ name: String) throws {
        let original = try JSONParser.parse(try readFile(Fixtures.path("arcgis-webmaps/" + name)))
        let map = WebMap(value: original)
        let written = try JSONParser.parse(JSONWriter.bytes(map.jsonValue))
        #expect(written == original)
        #expect(sameKeyOrder(written, original))
        // Through a .mmap and back, as a package stores it.
        let mmap = MobileMap(map: map, item: MapItem(guid: "G", name: "n", title: "t"))
        let reread = try MobileMap.parse(JSONWriter.bytes(mmap.jsonValue), path: name)
        #expect(reread.map.jsonValue == original)
    }

    @Test(Fixtures.required)
    func readsLayersRenderersAndSymbolsOfARealWebMap() throws {
        let map = WebMap(value: try JSONParser.parse(try readFile(Fixtures.path("arcgis-webmaps/wsdot-witpa_itemdata.json"))))
        let layers = map.operationalLayers ?? []
        #expect(layers.count > 3)
        #expect(layers[0].title == "County Boundaries")
        #expect(layers[0].visibility == false)
        let cityLimits = try #require(layers.first { $0.id == "CityLimits" })
        #expect(cityLimits.opacity == 0.47)
        let sublayer = try #require(cityLimits.layers?.first { $0.displayName == "Incorporated City Boundaries" })
        guard case .simple(let renderer)? = sublayer.renderer, case .simpleFill(let fill)? = renderer.symbol else {
            Issue.record("expected a simple renderer with a fill symbol")
            return
        }
        #expect(fill.color == nil)  // "color": null in the file
        #expect(fill.outline?.color == RGBAColor(red: 168, green: 168, blue: 0, alpha: 255))
        #expect(fill.outline?.style == "esriSLSDot")
        #expect(map.spatialReference?.epsg == 3857)
    }

    @Test(Fixtures.required)
    func changingOneValueChangesOnlyThatValue() throws {
        let original = try JSONParser.parse(try readFile(Fixtures.path("arcgis-webmaps/wsdot-layer-list_webmap.json")))
        var map = WebMap(value: original)
        map.operationalLayers![0].title = "Renamed"
        let written = map.jsonValue
        var expected = original.objectValue!
        var layers = expected.array("operationalLayers")!
        var first = layers[0].objectValue!
        first["title"] = "Renamed"
        layers[0] = .object(first)
        expected["operationalLayers"] = .array(layers)
        #expect(written == .object(expected))
    }

    @Test func rendererModelsKeepUnknownKeysAndNumberValues() throws {
        let json = try JSONParser.parse(#"""
            {"type": "uniqueValue", "field1": "TYPE", "legendOptions": {"title": "x"},
             "uniqueValueInfos": [{"value": 1, "label": "One", "symbol": {"type": "esriSMS", "style": "esriSMSCircle", "color": [1, 2, 3], "size": 8}}, "stray"],
             "defaultSymbol": {"type": "CIMSymbolReference", "symbol": {}}}
            """#)
        let renderer = Renderer(value: json)
        guard case .uniqueValue(let r) = renderer else {
            Issue.record("not read as uniqueValue")
            return
        }
        #expect(r.uniqueValueInfos?.first?.valueText == "1")
        #expect(renderer.fields == ["TYPE"])
        if case .other = r.defaultSymbol {} else { Issue.record("a CIM symbol must be kept as it is") }
        #expect(renderer.jsonValue == json)
        #expect(sameKeyOrder(renderer.jsonValue, json))
    }

    @Test(arguments: [
        ("file:./data.gpkg?table=mains", "p20", "p20/data.gpkg", "mains"),
        ("file:./My%20Data.gpkg?table=a%26b", "p20", "p20/My Data.gpkg", "a&b"),
        ("file:../shared/x.gpkg?table=t", "p20/sub", "p20/shared/x.gpkg", "t"),
    ])
    func layerPathsResolveAgainstTheMapFolder(_ input: (String, String, String, String)) throws {
        let path = try #require(LayerDataPath(input.0))
        #expect(path.entryName(relativeTo: input.1) == input.2)
        #expect(path.table == input.3)
    }

    @Test func esriItemIdPathsAreRead() throws {
        let path = try #require(LayerDataPath("file:./usa.geodatabase?itemId=2"))
        #expect(path.itemId == 2)
        #expect(path.file == "usa.geodatabase")
        #expect(LayerDataPath("https://example.com/FeatureServer/0") == nil)
    }
}
