import MapbookSupport

/// A web map renderer: `simple`, `uniqueValue` or `classBreaks`, or any other kind kept as is.
public enum Renderer: JSONModel {
    case simple(SimpleRenderer)
    case uniqueValue(UniqueValueRenderer)
    case classBreaks(ClassBreaksRenderer)
    /// A renderer this toolkit does not model (heatmap, dictionary, ...); kept unchanged.
    case other(JSONObject)

    public init(json: JSONObject) {
        switch json.string("type") {
        case "simple": self = .simple(SimpleRenderer(json: json))
        case "uniqueValue": self = .uniqueValue(UniqueValueRenderer(json: json))
        case "classBreaks": self = .classBreaks(ClassBreaksRenderer(json: json))
        default: self = .other(json)
        }
    }

    public var json: JSONObject {
        switch self {
        case .simple(let r): return r.json
        case .uniqueValue(let r): return r.json
        case .classBreaks(let r): return r.json
        case .other(let o): return o
        }
    }

    public var typeName: String { json.string("type") ?? "unknown" }

    /// The attribute fields the renderer reads, in order: its classes' fields (with a class
    /// breaks renderer's normalisation field), then its visual variables'.
    public var fields: [String] {
        let classes: [String]
        switch self {
        case .simple: classes = []
        case .uniqueValue(let r): classes = [r.field1, r.field2, r.field3].compactMap { $0 }
        case .classBreaks(let r):
            classes = [r.field, r.normalizationType == "esriNormalizeByField" ? r.normalizationField : nil].compactMap { $0 }
        case .other(let o): classes = o.string("field").map { [$0] } ?? []
        }
        let variables = (json.array("visualVariables") ?? []).compactMap(\.objectValue)
            .filter { $0.string("valueExpression") == nil }
            .flatMap { [$0.string("field"), $0.string("normalizationField")].compactMap { $0 } }
        var seen = Set<String>()
        return (classes + variables).filter { !$0.isEmpty && seen.insert($0).inserted }
    }
}

/// `simple`: one symbol for every feature.
public struct SimpleRenderer: JSONModel {
    public var symbol: Symbol?
    public var label: String?
    public var description: String?
    public var original: JSONObject

    public init(json: JSONObject) {
        original = json
        symbol = json.model("symbol")
        label = json.string("label")
        description = json.string("description")
    }

    public init(symbol: Symbol, label: String? = nil) {
        self.init(json: ["type": "simple"])
        self.symbol = symbol
        self.label = label
    }

    public var json: JSONObject {
        var o = original
        o.set("type", "simple")
        o.set("symbol", symbol)
        o.set("label", label)
        o.set("description", description)
        return o
    }
}

/// `uniqueValue`: a symbol per value of up to three fields.
public struct UniqueValueRenderer: JSONModel {
    public var field1: String?
    public var field2: String?
    public var field3: String?
    public var fieldDelimiter: String?
    public var defaultSymbol: Symbol?
    public var defaultLabel: String?
    public var uniqueValueInfos: [UniqueValueInfo]?
    public var original: JSONObject

    public init(json: JSONObject) {
        original = json
        field1 = json.string("field1")
        field2 = json.string("field2")
        field3 = json.string("field3")
        fieldDelimiter = json.string("fieldDelimiter")
        defaultSymbol = json.model("defaultSymbol")
        defaultLabel = json.string("defaultLabel")
        uniqueValueInfos = json.models("uniqueValueInfos")
    }

    public init(field: String, infos: [UniqueValueInfo], defaultSymbol: Symbol? = nil, defaultLabel: String? = nil) {
        self.init(json: ["type": "uniqueValue"])
        self.field1 = field
        self.uniqueValueInfos = infos
        self.defaultSymbol = defaultSymbol
        self.defaultLabel = defaultLabel
    }

    public var json: JSONObject {
        var o = original
        o.set("type", "uniqueValue")
        o.set("field1", field1)
        o.set("field2", field2)
        o.set("field3", field3)
        o.set("fieldDelimiter", fieldDelimiter)
        o.set("defaultSymbol", defaultSymbol)
        o.set("defaultLabel", defaultLabel)
        o.setModels("uniqueValueInfos", uniqueValueInfos)
        return o
    }
}

/// One class of a unique value renderer.
public struct UniqueValueInfo: JSONModel {
    /// The value as written: normally a string, sometimes a number in real web maps.
    public var value: JSONValue?
    public var label: String?
    public var description: String?
    public var symbol: Symbol?
    public var original: JSONObject

    public init(json: JSONObject) {
        original = json
        value = json["value"]
        label = json.string("label")
        description = json.string("description")
        symbol = json.model("symbol")
    }

    public init(value: String, label: String? = nil, symbol: Symbol) {
        self.init(json: JSONObject())
        self.value = .string(value)
        self.label = label ?? value
        self.symbol = symbol
    }

    /// The value as text, whatever JSON type it was written as.
    public var valueText: String? {
        switch value {
        case .string(let s)?: return s
        case .integer(let i)?: return String(i)
        case .number(let d)?: return JSONWriter.formatNumber(d)
        case .bool(let b)?: return String(b)
        default: return nil
        }
    }

    public var json: JSONObject {
        var o = original
        o.set("value", value)
        o.set("label", label)
        o.set("description", description)
        o.set("symbol", symbol)
        return o
    }
}

/// `classBreaks`: a symbol per numeric range of one field.
public struct ClassBreaksRenderer: JSONModel {
    public var field: String?
    public var minValue: Double?
    public var classificationMethod: String?
    public var normalizationType: String?
    public var normalizationField: String?
    public var defaultSymbol: Symbol?
    public var defaultLabel: String?
    public var classBreakInfos: [ClassBreakInfo]?
    public var original: JSONObject

    public init(json: JSONObject) {
        original = json
        field = json.string("field")
        minValue = json.double("minValue")
        classificationMethod = json.string("classificationMethod")
        normalizationType = json.string("normalizationType")
        normalizationField = json.string("normalizationField")
        defaultSymbol = json.model("defaultSymbol")
        defaultLabel = json.string("defaultLabel")
        classBreakInfos = json.models("classBreakInfos")
    }

    public init(field: String, minValue: Double, infos: [ClassBreakInfo]) {
        self.init(json: ["type": "classBreaks"])
        self.field = field
        self.minValue = minValue
        self.classBreakInfos = infos
    }

    public var json: JSONObject {
        var o = original
        o.set("type", "classBreaks")
        o.set("field", field)
        o.set("minValue", minValue)
        o.set("classificationMethod", classificationMethod)
        o.set("normalizationType", normalizationType)
        o.set("normalizationField", normalizationField)
        o.set("defaultSymbol", defaultSymbol)
        o.set("defaultLabel", defaultLabel)
        o.setModels("classBreakInfos", classBreakInfos)
        return o
    }
}

/// One class of a class breaks renderer: values up to `classMaxValue`.
public struct ClassBreakInfo: JSONModel {
    public var classMinValue: Double?
    public var classMaxValue: Double?
    public var label: String?
    public var description: String?
    public var symbol: Symbol?
    public var original: JSONObject

    public init(json: JSONObject) {
        original = json
        classMinValue = json.double("classMinValue")
        classMaxValue = json.double("classMaxValue")
        label = json.string("label")
        description = json.string("description")
        symbol = json.model("symbol")
    }

    public init(classMaxValue: Double, label: String, symbol: Symbol) {
        self.init(json: JSONObject())
        self.classMaxValue = classMaxValue
        self.label = label
        self.symbol = symbol
    }

    public var json: JSONObject {
        var o = original
        o.set("classMinValue", classMinValue)
        o.set("classMaxValue", classMaxValue)
        o.set("label", label)
        o.set("description", description)
        o.set("symbol", symbol)
        return o
    }
}
