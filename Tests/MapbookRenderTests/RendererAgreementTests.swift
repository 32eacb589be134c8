import Foundation
import MapbookData
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import MapbookTiles
import Testing

@testable import MapbookRender

/// Drawing (per feature) and the backdrop's MapLibre style (compiled expressions) read one
/// renderer the same way: each feature runs through `LayerStyle` and through the style's
/// filter and paint, evaluated by `MapLibreExpression`, and both must give the same symbol.
@Suite struct RendererAgreementTests {
    static func marker(_ n: Int) -> Symbol {
        .simpleMarker(SimpleMarkerSymbol(color: RGBAColor(red: n, green: 10 * n % 256, blue: 255 - n), size: 6))
    }

    /// The feature's properties as a vector tile holds them: nulls are left out.
    static func tileProperties(_ attributes: [String: FieldValue]) -> [String: JSONValue] {
        attributes.compactMapValues { v in
            switch v {
            case .null, .blob: return nil
            case .integer(let i): return .integer(i)
            case .real(let d): return .number(d)
            case .text(let s): return .string(s)
            }
        }
    }

    /// The paint property the style gives a symbol on its own (a `simple` renderer).
    static func paint(_ symbol: Symbol, geometry: VectorLayerInfo.Geometry, property: String) -> JSONValue? {
        let style = VectorTileStyle(name: "T", layers: [.init(sourceLayer: "l", geometry: geometry, renderer: .simple(SimpleRenderer(symbol: symbol)))]).json
        return style.array("layers")?.compactMap(\.objectValue).first { $0.string("id") == "l" }?.object("paint")?[property]
    }

    /// Checks every feature: hidden in the style exactly when drawing gives no symbol, and
    /// painted with the symbol drawing picks. Returns the symbols, for further checks.
    @discardableResult
    static func expectAgreement(
        _ renderer: Renderer, _ features: [[String: FieldValue]], geometry: VectorLayerInfo.Geometry = .point,
        property: String = "circle-color", sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [Symbol?] {
        let style = VectorTileStyle(name: "T", layers: [.init(sourceLayer: "l", geometry: geometry, renderer: renderer)]).json
        let layer = try #require(style.array("layers")?.compactMap(\.objectValue).first { $0.string("id") == "l" }, sourceLocation: sourceLocation)
        let paint = try #require(layer.object("paint")?[property], sourceLocation: sourceLocation)
        let drawing = LayerStyle(renderer: renderer)
        var symbols: [Symbol?] = []
        for attributes in features {
            let symbol = drawing.symbol(for: attributes)
            symbols.append(symbol)
            let properties = tileProperties(attributes)
            let shown = try layer["filter"].map { try MapLibreExpression.evaluate($0, properties: properties) == true } ?? true
            #expect(shown == (symbol != nil), "\(attributes): drawn \(symbol != nil), styled \(shown)", sourceLocation: sourceLocation)
            if let symbol, shown {
                let styled = try MapLibreExpression.evaluate(paint, properties: properties)
                #expect(styled == Self.paint(symbol, geometry: geometry, property: property), "\(attributes)", sourceLocation: sourceLocation)
            }
        }
        return symbols
    }

    @Test func uniqueValuesCompareNumbersAsNumbersAndOtherTextExactly() throws {
        func info(_ value: JSONValue, _ n: Int) -> UniqueValueInfo {
            var info = UniqueValueInfo(json: ["value": value])
            info.symbol = Self.marker(n)
            return info
        }
        let renderer = UniqueValueRenderer(
            field: "CODE",
            infos: [
                info(.integer(3), 1), info("4.0", 2), info(.number(5.5), 3), info("<Null>", 4), info("", 5), info("16", 6),
                info("DI", 7), info(" PVC", 8), info("3", 9),  // "3" repeats the first class: never reached
            ], defaultSymbol: Self.marker(10))
        let values: [FieldValue] = [
            .integer(3), .real(3), .text("3"), .text(" 3 "), .text("3.0"), .integer(4), .text("4"), .real(5.5), .text("5.50"),
            .null, .text(""), .text("  "), .text("0x10"), .text("Infinity"), .text("abc"), .text("DI"), .text("di"),
            .text("PVC"), .text(" PVC"), .integer(7), .real(-0.0), .text("1e1"),
        ]
        let symbols = try Self.expectAgreement(.uniqueValue(renderer), values.map { ["CODE": $0] })
        #expect(symbols[0...4].allSatisfy { $0 == Self.marker(1) })
        #expect(symbols[5...6].allSatisfy { $0 == Self.marker(2) })
        #expect(symbols[7] == Self.marker(3) && symbols[8] == Self.marker(3))
        #expect(symbols[9] == Self.marker(4))  // null is "<Null>"
        #expect(symbols[10] == Self.marker(5))  // empty text is the "" class
        #expect(symbols[11] == Self.marker(10))  // blank text is not the number 0
        #expect(symbols[12] == Self.marker(6))  // "0x10" reads as 16, as MapLibre reads it
        #expect(symbols[15] == Self.marker(7) && symbols[16] == Self.marker(10))  // text matches exactly
        #expect(symbols[17] == Self.marker(10) && symbols[18] == Self.marker(8))
    }

    @Test func anEmptyFieldDelimiterJoinsTheValuesWithNothingBetween() throws {
        var renderer = UniqueValueRenderer(
            field: "TYPE",
            infos: [
                UniqueValueInfo(value: "A3", symbol: Self.marker(1)), UniqueValueInfo(value: "B<Null>", symbol: Self.marker(2)),
                UniqueValueInfo(value: "AB", symbol: Self.marker(3)),
            ])
        renderer.field2 = "SIZE"
        renderer.fieldDelimiter = ""
        let features: [[String: FieldValue]] = [
            ["TYPE": .text("A"), "SIZE": .integer(3)], ["TYPE": .text("A"), "SIZE": .real(3)], ["TYPE": .text("B"), "SIZE": .null],
            ["TYPE": .text("A"), "SIZE": .text("B")], ["TYPE": .text("A"), "SIZE": .null], ["TYPE": .text("A3"), "SIZE": .text("")],
            ["TYPE": .text("C"), "SIZE": .integer(3)],
        ]
        let symbols = try Self.expectAgreement(.uniqueValue(renderer), features)
        #expect(symbols == [Self.marker(1), Self.marker(1), Self.marker(2), Self.marker(3), nil, Self.marker(1), nil])
    }

    @Test func severalFieldsJoinWithTheDelimiterAndComponentsReadAsNumbers() throws {
        var renderer = UniqueValueRenderer(
            field: "MATERIAL",
            infos: [UniqueValueInfo(value: "DI, 8", symbol: Self.marker(1)), UniqueValueInfo(value: "DI, <Null>", symbol: Self.marker(2)),
                    UniqueValueInfo(value: "PVC,6.0", symbol: Self.marker(3))],
            defaultSymbol: Self.marker(4))
        renderer.field2 = "DIAMETER"
        renderer.fieldDelimiter = ", "
        let features: [[String: FieldValue]] = [
            ["MATERIAL": .text("DI"), "DIAMETER": .integer(8)], ["MATERIAL": .text("DI"), "DIAMETER": .text("8.0")],
            ["MATERIAL": .text("DI"), "DIAMETER": .null], ["MATERIAL": .text("PVC"), "DIAMETER": .integer(6)],
        ]
        let symbols = try Self.expectAgreement(.uniqueValue(renderer), features)
        // "PVC,6.0" has no ", ": it is compared as written, which no feature's key is.
        #expect(symbols == [Self.marker(1), Self.marker(1), Self.marker(2), Self.marker(4)])
    }

    @Test func aClassWithoutASymbolHidesItsFeatures() throws {
        var hidden = UniqueValueInfo(json: ["value": "abandoned"])
        hidden.symbol = nil
        let renderer = UniqueValueRenderer(
            field: "STATUS", infos: [hidden, UniqueValueInfo(value: "active", symbol: Self.marker(1))], defaultSymbol: Self.marker(2))
        let symbols = try Self.expectAgreement(
            .uniqueValue(renderer), [["STATUS": .text("abandoned")], ["STATUS": .text("active")], ["STATUS": .text("other")]])
        #expect(symbols == [nil, Self.marker(1), Self.marker(2)])
        // A simple renderer without a symbol draws nothing either.
        try Self.expectAgreement(.simple(SimpleRenderer(json: ["type": "simple"])), [["X": .integer(1)]], geometry: .polygon, property: "fill-color")
    }

    static let breakValues: [FieldValue] = [
        .integer(0), .real(5), .integer(10), .real(10.000001), .integer(20), .text("15"), .text(" 15 "), .real(20.5), .real(-0.5),
        .null, .text("wide"), .text(""), .text(" "), .text("0"), .text("Infinity"), .real(1e300),
    ]

    @Test func aValueExactlyOnABreakIsInTheClassItEnds() throws {
        var renderer = ClassBreaksRenderer(
            field: "DIAMETER", minValue: 0,
            infos: [
                ClassBreakInfo(classMaxValue: 20, label: "10 - 20", symbol: Self.marker(2)),  // listed out of order
                ClassBreakInfo(classMaxValue: 10, label: "0 - 10", symbol: Self.marker(1)),
            ])
        let withoutDefault = try Self.expectAgreement(.classBreaks(renderer), Self.breakValues.map { ["DIAMETER": $0] })
        #expect(withoutDefault[0...2].allSatisfy { $0 == Self.marker(1) })
        #expect(withoutDefault[3...6].allSatisfy { $0 == Self.marker(2) })
        #expect(withoutDefault[7...].allSatisfy { $0 == nil || $0 == Self.marker(1) })
        #expect(withoutDefault[13] == Self.marker(1))  // "0" is 0; "" and " " are no number
        #expect(withoutDefault[9] == nil && withoutDefault[11] == nil && withoutDefault[12] == nil)
        renderer.defaultSymbol = Self.marker(3)
        try Self.expectAgreement(.classBreaks(renderer), Self.breakValues.map { ["DIAMETER": $0] })
    }

    @Test func classesWithTheirOwnMinimumLeaveGaps() throws {
        var low = ClassBreakInfo(classMaxValue: 5, label: "low", symbol: Self.marker(1))
        low.classMinValue = 1
        var high = ClassBreakInfo(classMaxValue: 20, label: "high", symbol: Self.marker(2))
        high.classMinValue = 12
        var renderer = ClassBreaksRenderer(field: "DIAMETER", minValue: 0, infos: [low, high])
        renderer.defaultSymbol = Self.marker(3)
        let symbols = try Self.expectAgreement(.classBreaks(renderer), Self.breakValues.map { ["DIAMETER": $0] })
        #expect(symbols[0] == Self.marker(3) && symbols[1] == Self.marker(1) && symbols[2] == Self.marker(3) && symbols[5] == Self.marker(2))
    }

    @Test func normalizationByFieldDividesByItAndHidesFeaturesWithoutADivisor() throws {
        var renderer = ClassBreaksRenderer(
            field: "POP", minValue: 0,
            infos: [ClassBreakInfo(classMaxValue: 1, label: "<= 1", symbol: Self.marker(1)), ClassBreakInfo(classMaxValue: 100, label: "> 1", symbol: Self.marker(2))])
        renderer.normalizationType = "esriNormalizeByField"
        renderer.normalizationField = "AREA"
        let features: [[String: FieldValue]] = [
            ["POP": .integer(50), "AREA": .integer(100)], ["POP": .integer(100), "AREA": .integer(100)], ["POP": .integer(500), "AREA": .integer(100)],
            ["POP": .integer(500), "AREA": .integer(0)], ["POP": .integer(500), "AREA": .null], ["POP": .integer(500), "AREA": .text("50")],
            ["POP": .null, "AREA": .integer(5)], ["POP": .integer(1), "AREA": .real(0.1)],
        ]
        let symbols = try Self.expectAgreement(.classBreaks(renderer), features)
        #expect(symbols == [Self.marker(1), Self.marker(1), Self.marker(2), nil, nil, Self.marker(2), nil, Self.marker(2)])
        renderer.defaultSymbol = Self.marker(3)
        try Self.expectAgreement(.classBreaks(renderer), features)
    }

    @Test(arguments: ["esriNormalizeByLog", "esriNormalizeByPercentOfTotal"])
    func otherNormalizationsAgree(type: String) throws {
        var renderer = ClassBreaksRenderer(json: ["type": "classBreaks", "normalizationTotal": 200])
        renderer.field = "POP"
        renderer.minValue = -10
        renderer.classBreakInfos = [
            ClassBreakInfo(classMaxValue: 1, label: "a", symbol: Self.marker(1)), ClassBreakInfo(classMaxValue: 2, label: "b", symbol: Self.marker(2)),
            ClassBreakInfo(classMaxValue: 50, label: "c", symbol: Self.marker(3)),
        ]
        renderer.normalizationType = type
        renderer.defaultSymbol = Self.marker(4)
        let values: [FieldValue] = [.integer(0), .integer(-5), .integer(2), .integer(10), .integer(100), .real(99.9), .integer(1000), .null]
        try Self.expectAgreement(.classBreaks(renderer), values.map { ["POP": $0] })
    }

    /// A simple marker renderer with a colour ramp on `V` (red at 0, blue at 100) and sizes on
    /// `S` (4 pt at 0 to 20 pt at 100), as the web map specification writes them.
    static let rampRenderer = Renderer(json: [
        "type": "simple",
        "symbol": Self.marker(1).jsonValue,
        "visualVariables": [
            ["type": "colorInfo", "field": "V", "stops": [
                ["value": 0, "color": [255, 0, 0, 255], "label": "none"],
                ["value": 100, "color": [0, 0, 255, 128], "label": "all"],
            ]],
            ["type": "sizeInfo", "field": "S", "minDataValue": 0, "maxDataValue": 100, "minSize": 4, "maxSize": 20],
        ],
    ])

    @Test func colorAndSizeVariablesInterpolateAndAgreeWithTheStyle() throws {
        let values: [FieldValue] = [.integer(-10), .integer(0), .integer(25), .real(50), .integer(100), .integer(200), .null, .text("75"), .text("many")]
        let features = values.map { ["V": $0, "S": $0] }
        let symbols = try Self.expectAgreement(Self.rampRenderer, features, property: "circle-color")
        func marker(_ s: Symbol?) -> SimpleMarkerSymbol? { if case .simpleMarker(let m)? = s { m } else { nil } }
        #expect(marker(symbols[0])?.color == RGBAColor(red: 255, green: 0, blue: 0), "below the first stop: its colour")
        #expect(marker(symbols[2])?.color == RGBAColor(red: 191, green: 0, blue: 64, alpha: 223), "a quarter of the way")
        #expect(marker(symbols[5])?.color == RGBAColor(red: 0, green: 0, blue: 255, alpha: 128), "past the last stop: its colour")
        #expect(marker(symbols[6])?.color == marker(Self.marker(1))?.color && marker(symbols[6])?.size == 6, "no value: the class's symbol")
        #expect(marker(symbols[7])?.size == 16 && marker(symbols[3])?.size == 12 && marker(symbols[1])?.size == 4 && marker(symbols[5])?.size == 20)
        #expect(marker(symbols[8])?.size == 6, "text that is not a number keeps the class's size")

        // Radii agree to the style's rounding of pixels.
        let style = VectorTileStyle(name: "T", layers: [.init(sourceLayer: "l", geometry: .point, renderer: Self.rampRenderer)]).json
        let paint = try #require(style.array("layers")?.compactMap(\.objectValue).first { $0.string("id") == "l" }?.object("paint"))
        for (attributes, symbol) in zip(features, symbols) {
            let styled = try #require(paint["circle-radius"])
            let radius = try MapLibreExpression.evaluate(styled, properties: Self.tileProperties(attributes)).doubleValue
            let marker = try #require(symbol)
            let drawn = try #require(Self.paint(marker, geometry: .point, property: "circle-radius")?.doubleValue)
            #expect(abs((radius ?? .nan) - drawn) < 0.02, "\(attributes): styled \(radius ?? .nan), drawn \(drawn)")
        }
    }

    @Test func theLegendListsEachVariablesStopsAfterTheClasses() {
        let classes = RendererClasses(Self.rampRenderer)
        #expect(classes.legend.count == 1)
        let legends = classes.variableLegends
        #expect(legends.map(\.kind) == [.color, .size] && legends.map(\.field) == ["V", "S"])
        #expect(legends[0].entries.map(\.label) == ["none", "all"], "a stop's own label")
        #expect(legends[1].entries.map(\.label) == ["0", "100"], "a size range's ends by value")
        if case .simpleMarker(let m) = legends[1].entries[1].symbol { #expect(m.size == 20) } else { Issue.record("not a marker") }
    }

    @Test func variablesThatCannotBeEvaluatedSayWhyAndChangeNothing() {
        let renderer = Renderer(json: [
            "type": "simple", "symbol": Self.marker(1).jsonValue,
            "visualVariables": [
                ["type": "colorInfo", "valueExpression": "$feature.V * 2", "stops": [["value": 0, "color": [0, 0, 0, 255]]]],
                ["type": "sizeInfo", "field": "S", "valueUnit": "meters", "valueRepresentation": "radius"],
                ["type": "rotationInfo", "field": "R", "rotationType": "geographic"],
            ],
        ])
        let classes = RendererClasses(renderer)
        #expect(classes.visualVariables.map(\.isActive) == [false, false, true])
        #expect(classes.visualVariables[0].problem?.contains("Arcade") == true)
        let symbol = classes.symbol { name in name == "R" ? .integer(30) : .integer(50) }
        if case .simpleMarker(let m)? = symbol {
            #expect(m.color == RGBAColor(red: 1, green: 10, blue: 254) && m.size == 6)
            #expect(m.angle == -30, "a bearing of 30 degrees turns the marker clockwise")
        } else {
            Issue.record("not a marker")
        }
        #expect(renderer.fields == ["S", "R"], "an Arcade variable reads no field by name")
    }

    @Test(.enabled(if: Fixtures.available, "needs ../shared/fixtures/arcgis-webmaps"))
    func realWebMapRenderersAgree() throws {
        let folder = Fixtures.path("arcgis-webmaps")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }.sorted()
        var renderers: [Renderer] = []
        func collect(_ value: JSONValue) {
            switch value {
            case .object(let o):
                if let r = o.object("renderer"), r.string("type") != nil { renderers.append(Renderer(json: r)) }
                for (_, v) in o { collect(v) }
            case .array(let a): a.forEach(collect)
            default: break
            }
        }
        for file in files { collect(try JSONParser.parse(try readFile(folder + "/" + file))) }
        #expect(!renderers.isEmpty)
        for renderer in renderers {
            // Every class's own value, then values no class has.
            var features: [[String: FieldValue]] = [[:]]
            switch renderer {
            case .uniqueValue(let r):
                let fields = renderer.fields
                for info in r.uniqueValueInfos ?? [] {
                    let parts = fields.count > 1 ? (info.valueText ?? "").components(separatedBy: r.fieldDelimiter ?? ",") : [info.valueText ?? ""]
                    features.append(Dictionary(uniqueKeysWithValues: zip(fields, parts.map { FieldValue.text($0) })))
                }
            case .classBreaks(let r):
                for info in r.classBreakInfos ?? [] { if let max = info.classMaxValue { features += [[r.field ?? "": .real(max)], [r.field ?? "": .real(max.nextUp)]] } }
            default: break
            }
            let geometry: VectorLayerInfo.Geometry
            let property: String
            switch RendererClasses(renderer).legend.first?.symbol {
            case .simpleFill?: (geometry, property) = (.polygon, "fill-color")
            case .simpleLine?: (geometry, property) = (.line, "line-color")
            default: (geometry, property) = (.point, "circle-color")
            }
            try Self.expectAgreement(renderer, features, geometry: geometry, property: property)
        }
    }
}
