import MapbookPackage
import Testing

/// The one reading of web map renderers: classes, legends, and how values are read.
@Suite struct RendererClassesTests {
    static func fill(_ n: Int) -> Symbol {
        .simpleFill(SimpleFillSymbol(color: RGBAColor(red: n, green: n, blue: n)))
    }

    @Test func uniqueValueLegendListsTheClassesInOrderThenTheDefault() {
        var unlabelled = UniqueValueInfo(json: ["value": .integer(8)])
        unlabelled.symbol = Self.fill(3)
        var noSymbol = UniqueValueInfo(json: ["value": "abandoned", "label": "Abandoned"])
        noSymbol.symbol = nil
        let renderer = UniqueValueRenderer(
            field: "MATERIAL", infos: [UniqueValueInfo(value: "DI", label: "Ductile iron", symbol: Self.fill(1)), unlabelled, noSymbol],
            defaultSymbol: Self.fill(9))
        let classes = RendererClasses(.uniqueValue(renderer))
        #expect(classes.legend.map(\.label) == ["Ductile iron", "8", "Other"])
        var labelled = renderer
        labelled.defaultLabel = "All other materials"
        #expect(RendererClasses(.uniqueValue(labelled)).legend.last == .init(label: "All other materials", symbol: Self.fill(9)))
        labelled.defaultSymbol = nil
        #expect(RendererClasses(.uniqueValue(labelled)).legend.count == 2)  // nothing drawn, nothing listed
    }

    @Test func classBreakLegendUsesTheLabelsOrTheRange() {
        var unlabelled = ClassBreakInfo(json: ["classMaxValue": 20])
        unlabelled.symbol = Self.fill(2)
        let renderer = ClassBreaksRenderer(
            field: "DIAMETER", minValue: 0, infos: [ClassBreakInfo(classMaxValue: 10, label: "Small", symbol: Self.fill(1)), unlabelled])
        #expect(RendererClasses(.classBreaks(renderer)).legend == [.init(label: "Small", symbol: Self.fill(1)), .init(label: "10 – 20", symbol: Self.fill(2))])
    }

    @Test func classBreaksSortByMaximumAndAValueOnABreakIsInTheClassItEnds() throws {
        let renderer = ClassBreaksRenderer(
            field: "D", minValue: 0,
            infos: [ClassBreakInfo(classMaxValue: 20, label: "b", symbol: Self.fill(2)), ClassBreakInfo(classMaxValue: 10, label: "a", symbol: Self.fill(1))])
        let classes = RendererClasses(.classBreaks(renderer))
        guard case .classBreaks(let breaks) = classes.selector else { Issue.record("not class breaks"); return }
        #expect(breaks.ranges == [.init(lower: 0, upper: 10, classIndex: 1), .init(lower: 10, upper: 20, classIndex: 0)])
        #expect(breaks.isContiguous)
        #expect(classes.classIndex { _ in .integer(10) } == 1)
        #expect(classes.classIndex { _ in .number(10.000001) } == 0)
        #expect(classes.classIndex { _ in .null } == nil)
    }

    @Test(arguments: [
        (1.0, "1"), (-0.0, "0"), (0.5, "0.5"), (123.0, "123"), (1e21, "1e+21"), (1.5e21, "1.5e+21"), (1e20, "100000000000000000000"),
        (1e-6, "0.000001"), (1e-7, "1e-7"), (1.25e-7, "1.25e-7"), (0.1 + 0.2, "0.30000000000000004"), (-42.75, "-42.75"),
        (9007199254740992, "9007199254740992"), (.leastNonzeroMagnitude, "5e-324"),
    ])
    func numbersAreWrittenAsECMAScriptWritesThem(value: Double, text: String) {
        #expect(RendererValue.text(of: value) == text)
    }

    @Test(arguments: [
        ("3", 3.0), (" 3.0 ", 3), ("-2.5e1", -25), (".5", 0.5), ("5.", 5), ("+7", 7), ("0x1F", 31), ("0b101", 5), ("0o17", 15),
        ("", nil), ("  ", nil), ("abc", nil), ("Infinity", nil), ("1e400", nil), ("0x", nil), ("-0x10", nil), ("1_000", nil),
        ("nan", nil), ("3 4", nil), ("1e", nil),
    ] as [(String, Double?)])
    func textReadsAsANumberAsMapLibreReadsIt(text: String, number: Double?) {
        #expect(RendererValue.number(reading: text) == number)
    }

    @Test func nullIsWrittenAsEsriWritesIt() {
        #expect(RendererValue.keyText(of: .null) == "<Null>")
        #expect(RendererValue.keyText(of: .number(3.0)) == "3")
        #expect(RendererValue.keyText(of: .string(" 3.50")) == "3.5")
        #expect(RendererValue.keyText(of: .string(" PVC")) == " PVC")
    }
}
