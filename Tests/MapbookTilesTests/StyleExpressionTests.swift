import Foundation
import MapbookSupport
import Testing

@testable import MapbookTiles

/// The style evaluator against the MapLibre style specification's own examples and rules:
/// legacy filters and functions (Esri's styles use them), and expressions.
@Suite struct StyleExpressionTests {
    static func feature(_ properties: [String: JSONValue], type: String = "Polygon", id: Int64? = nil) -> StyleExpression.Feature {
        .init(properties: properties, geometryType: type, id: id.map { .integer($0) } ?? .null)
    }

    /// The filter's verdict on the feature.
    static func keeps(_ filter: JSONValue?, _ feature: StyleExpression.Feature, zoom: Double = 10) -> Bool {
        var e = StyleExpression(zoom: zoom, feature: feature)
        return e.filter(filter)
    }

    static func value(_ property: JSONValue, zoom: Double, _ feature: StyleExpression.Feature = .none) -> JSONValue? {
        var e = StyleExpression(zoom: zoom, feature: feature)
        return e.value(property)
    }

    static func evaluate(_ expression: JSONValue, zoom: Double = 9.5, _ feature: StyleExpression.Feature = .none) -> JSONValue? {
        var e = StyleExpression(zoom: zoom, feature: feature)
        return e.evaluate(expression)
    }

    @Test func legacyFiltersFollowTheSpecification() {
        let river = Self.feature(["class": "river", "rank": 3, "name": "Rhein"], type: "LineString", id: 7)
        #expect(Self.keeps(["==", "class", "river"], river))
        #expect(!Self.keeps(["==", "rank", "3"], river), "legacy == compares types strictly")
        #expect(Self.keeps(["in", "class", "river", "canal"], river) && !Self.keeps(["!in", "class", "river"], river))
        #expect(Self.keeps(["has", "name"], river) && Self.keeps(["!has", "ref"], river) && !Self.keeps(["!has", "name"], river))
        #expect(Self.keeps(["==", "$type", "LineString"], river) && Self.keeps(["==", "$id", 7], river))
        #expect(Self.keeps(["all", [">=", "rank", 2], ["<", "rank", 4]], river))
        #expect(!Self.keeps(["any", [">", "rank", 5], ["==", "class", "lake"]], river))
        #expect(Self.keeps(["none", ["==", "class", "lake"]], river))
        #expect(!Self.keeps([">", "name", 2], river), "a string does not compare with a number")
        #expect(Self.keeps(nil, river))
    }

    @Test func expressionFiltersAreToldFromLegacyOnes() {
        #expect(StyleExpression.isExpressionFilter(["==", ["get", "class"], "river"]))
        #expect(!StyleExpression.isExpressionFilter(["==", "class", "river"]))
        #expect(StyleExpression.isExpressionFilter(["in", ["get", "class"], ["literal", ["a", "b"]]]))
        #expect(!StyleExpression.isExpressionFilter(["in", "class", "a", "b"]))
        #expect(StyleExpression.isExpressionFilter(["all", ["==", ["get", "a"], 1], true]))
        #expect(!StyleExpression.isExpressionFilter(["all", ["==", "a", 1]]))
        #expect(Self.keeps(["in", ["get", "class"], ["literal", ["a", "b"]]], Self.feature(["class": "b"])))
    }

    @Test func zoomFunctionsInterpolateExponentiallyAndStepWhenTheyCannot() throws {
        let width: JSONValue = ["base": 2, "stops": [[10, 1], [14, 17]]]
        // base 2: (2^(12-10) - 1) / (2^4 - 1) = 3/15 of the way.
        let w = try #require(Self.value(width, zoom: 12)?.doubleValue)
        #expect(abs(w - (1 + 16.0 * 3 / 15)) < 1e-9)
        let stops: JSONValue = ["stops": [[5, 2], [8, 4]]]
        #expect(Self.value(stops, zoom: 12)?.doubleValue == 4, "past the last stop: its value")
        #expect(Self.value(stops, zoom: 6.5)?.doubleValue == 3, "base 1 is linear")
        #expect(Self.value(["stops": [[5, "a"], [6, "b"], [8, "c"]]], zoom: 6.5) == "b", "text steps")
        let color = try #require(Self.value(["stops": [[5, "#000000"], [8, "#ffffff"]]], zoom: 6.5)?.stringValue)
        let mixed = try #require(StyleColor(text: color))
        #expect(abs(mixed.red - 0.5) < 0.01 && abs(mixed.green - 0.5) < 0.01, "colours interpolate")
        let categorical: JSONValue = ["property": "kind", "type": "categorical", "stops": [["park", "#0f0"], ["lake", "#00f"]], "default": "#888"]
        #expect(Self.value(categorical, zoom: 6.5, Self.feature(["kind": "park"])) == "#0f0")
        #expect(Self.value(categorical, zoom: 6.5, Self.feature(["kind": "road"])) == "#888")
    }

    @Test func expressionsEvaluateAsTheSpecificationSays() throws {
        let city = Self.feature(["pop": 120_000, "name": "Köln", "kind": "city", "area": .null])
        #expect(Self.evaluate(["match", ["get", "kind"], ["town", "village"], 1, "city", 2, 0], city) == 2)
        #expect(Self.evaluate(["case", [">", ["get", "pop"], 1_000_000], "big", [">", ["get", "pop"], 100_000], "mid", "small"], city) == "mid")
        #expect(Self.evaluate(["coalesce", ["get", "missing"], ["get", "name"]], city) == "Köln")
        #expect(Self.evaluate(["step", ["zoom"], "a", 8, "b", 10, "c"]) == "b")
        #expect(Self.evaluate(["interpolate", ["linear"], ["zoom"], 9, 0, 10, 10])?.doubleValue == 5)
        let exponential = try #require(Self.evaluate(["interpolate", ["exponential", 2], ["zoom"], 9, 0, 11, 3])?.doubleValue)
        #expect(abs(exponential - 3 * (pow(2, 0.5) - 1) / 3) < 1e-9)
        #expect(Self.evaluate(["concat", ["get", "name"], " (", ["to-string", ["get", "pop"]], ")"], city) == "Köln (120000)")
        #expect(Self.evaluate(["let", "p", ["get", "pop"], ["*", ["var", "p"], 2]], city)?.doubleValue == 240_000)
        #expect(Self.evaluate(["!", ["has", "ref"]], city) == true)
        #expect(Self.evaluate(["==", ["get", "area"], .null], city) == true)
        #expect(Self.evaluate(["to-number", "12.5"])?.doubleValue == 12.5)
        #expect(Self.evaluate(["all", ["<", ["get", "pop"], 200_000], ["in", "ö", ["get", "name"]]], city) == true)
        #expect(Self.evaluate(["geometry-type"], city) == "Polygon")
        var e = StyleExpression(zoom: 1)
        let unknown = e.evaluate(["frobnicate", 1])
        #expect(unknown == nil && e.unsupported == ["frobnicate"], "an unknown operator is an evaluation error, and said")
    }

    @Test(arguments: [
        ("#f00", StyleColor(red: 1, green: 0, blue: 0)), ("#00ff0080", StyleColor(red: 0, green: 1, blue: 0, alpha: 128.0 / 255)),
        ("rgba(0, 0, 255, 0.5)", StyleColor(red: 0, green: 0, blue: 1, alpha: 0.5)), ("hsl(120, 100%, 25%)", StyleColor(red: 0, green: 0.5, blue: 0)),
        ("white", StyleColor(red: 1, green: 1, blue: 1)), ("hsla(0, 0%, 50%, 0.25)", StyleColor(red: 0.5, green: 0.5, blue: 0.5, alpha: 0.25)),
    ])
    func cssColours(text: String, expected: StyleColor) throws {
        let c = try #require(StyleColor(text: text))
        #expect(abs(c.red - expected.red) < 1e-9 && abs(c.green - expected.green) < 1e-9 && abs(c.blue - expected.blue) < 1e-9 && abs(c.alpha - expected.alpha) < 1e-9)
    }

    @Test func notColours() {
        for text in ["", "#12", "rgb(1,2)", "nope", "#ggg"] { #expect(StyleColor(text: text) == nil, "\(text)") }
    }
}
