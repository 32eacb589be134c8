import MapbookPackage
import MapbookSupport
import Testing

/// Label classes as ArcGIS writes them: which expressions give text, and the rest refused
/// with a reason rather than drawn wrong.
@Suite struct LabelClassTests {
    static func labelClass(_ json: String) throws -> LabelClass {
        LabelClass(json: try JSONParser.parseObject(Array(json.utf8), path: "label.json", expecting: "a label class"))
    }

    static let values: [String: String] = ["NAME": "Main St", "DIAMETER": "8", "KIND": "2"]

    @Test(arguments: [
        (#"{"labelExpressionInfo": {"expression": "$feature.NAME"}}"#, "Main St"),
        (#"{"labelExpressionInfo": {"expression": "return $feature[\"NAME\"];"}}"#, "Main St"),
        (#"{"labelExpressionInfo": {"expression": "$feature.DIAMETER + 'in ' + $feature['NAME']"}}"#, "8in Main St"),
        (#"{"labelExpressionInfo": {"expression": "$feature.NAME + TextFormatting.NewLine + DomainName($feature, 'KIND')"}}"#, "Main St\n<2>"),
        (#"{"labelExpressionInfo": {"value": "{NAME} ({DIAMETER})"}}"#, "Main St (8)"),
        (#"{"labelExpression": "[NAME] CONCAT \" - \" CONCAT [DIAMETER]"}"#, "Main St - 8"),
    ])
    func expressionsThatNameFieldsGiveTheirText(json: String, expected: String) throws {
        let label = try Self.labelClass(json)
        #expect(label.problem == nil)
        let text = label.text { name, domainName in domainName ? "<\(Self.values[name] ?? "")>" : Self.values[name] ?? "" }
        #expect(text == expected)
    }

    @Test(arguments: [
        #"{"labelExpressionInfo": {"expression": "IIf($feature.POP > 1000, $feature.NAME, '')"}}"#,
        #"{"labelExpressionInfo": {"expression": "var x = $feature.NAME; return Upper(x)"}}"#,
        #"{"labelExpressionInfo": {"expression": "$feature.NAME +"}}"#,
        #"{"labelExpression": "UCASE([NAME])"}"#,
        #"{"symbol": {"type": "esriTS"}}"#,
    ])
    func otherExpressionsAreNotRunAndSaySo(json: String) throws {
        let label = try Self.labelClass(json)
        #expect(label.problem != nil)
        #expect(label.parts.isEmpty)
    }

    @Test func scaleRangeFilterPlacementAndSymbolAreRead() throws {
        let label = try Self.labelClass(#"""
            {"labelExpressionInfo": {"expression": "$feature.NAME"}, "labelPlacement": "esriServerPointLabelPlacementAboveRight",
             "minScale": 50000, "maxScale": 1000, "where": "POP > 5", "deconflictionStrategy": "none",
             "symbol": {"type": "esriTS", "color": [10, 20, 30, 255], "haloColor": [255, 255, 255, 255], "haloSize": 1.5,
                        "font": {"family": "Noto Serif", "size": 11, "weight": "bold"}}}
            """#)
        #expect(label.isInScale(20000) && !label.isInScale(60000) && !label.isInScale(500))
        #expect(label.whereClause == "POP > 5" && label.allowOverlap)
        #expect(label.symbol.color == RGBAColor(red: 10, green: 20, blue: 30) && label.symbol.fontSize == 11 && label.symbol.fontWeight == "bold")
        #expect(label.fields == ["NAME"])
        // Written back as read.
        let again = LabelClass(json: label.json)
        #expect(again == label)
    }
}
