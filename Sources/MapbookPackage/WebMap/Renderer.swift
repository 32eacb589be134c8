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
        let variables = (json.array("visualVariables") ?? []).compactMap { $0.objectValue }
            .filter { $0.string("valueExpression") == nil }
            .flatMap { [$0.string("field"), $0.string("normalizationField")].compactMap { $0 } }
        var seen = Set<String>()
        return (classes + variables).filter { !$0.isEmpty && seen.insert($0).inserted }
    }
}

/// `simple`: one symbol for every feature.
public struct SimpleRenderer: JSONRecord {
    public var symbol: Symbol?
    public var label: String?
    public var description: String?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .constant("type", "simple"),
            .model("symbol", { $0.symbol }, { $0.symbol = $1 }),
            .string("label", { $0.label }, { $0.label = $1 }),
            .string("description", { $0.description }, { $0.description = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(symbol: Symbol, label: String? = nil) {
        self.init(original: ["type": "simple"])
        self.symbol = symbol
        self.label = label
    }
}

/// `uniqueValue`: a symbol per value of up to three fields.
public struct UniqueValueRenderer: JSONRecord {
    public var field1: String?
    public var field2: String?
    public var field3: String?
    public var fieldDelimiter: String?
    public var defaultSymbol: Symbol?
    public var defaultLabel: String?
    public var uniqueValueInfos: [UniqueValueInfo]?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .constant("type", "uniqueValue"),
            .string("field1", { $0.field1 }, { $0.field1 = $1 }),
            .string("field2", { $0.field2 }, { $0.field2 = $1 }),
            .string("field3", { $0.field3 }, { $0.field3 = $1 }),
            .string("fieldDelimiter", { $0.fieldDelimiter }, { $0.fieldDelimiter = $1 }),
            .model("defaultSymbol", { $0.defaultSymbol }, { $0.defaultSymbol = $1 }),
            .string("defaultLabel", { $0.defaultLabel }, { $0.defaultLabel = $1 }),
            .models("uniqueValueInfos", { $0.uniqueValueInfos }, { $0.uniqueValueInfos = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(field: String, infos: [UniqueValueInfo], defaultSymbol: Symbol? = nil, defaultLabel: String? = nil) {
        self.init(original: ["type": "uniqueValue"])
        self.field1 = field
        self.uniqueValueInfos = infos
        self.defaultSymbol = defaultSymbol
        self.defaultLabel = defaultLabel
    }
}

/// One class of a unique value renderer.
public struct UniqueValueInfo: JSONRecord {
    /// The value as written: normally a string, sometimes a number in real web maps.
    public var value: JSONValue?
    public var label: String?
    public var description: String?
    public var symbol: Symbol?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .value("value", { $0.value }, { $0.value = $1 }),
            .string("label", { $0.label }, { $0.label = $1 }),
            .string("description", { $0.description }, { $0.description = $1 }),
            .model("symbol", { $0.symbol }, { $0.symbol = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(value: String, label: String? = nil, symbol: Symbol) {
        self.init(original: JSONObject())
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
}

/// `classBreaks`: a symbol per numeric range of one field.
public struct ClassBreaksRenderer: JSONRecord {
    public var field: String?
    public var minValue: Double?
    public var classificationMethod: String?
    public var normalizationType: String?
    public var normalizationField: String?
    public var defaultSymbol: Symbol?
    public var defaultLabel: String?
    public var classBreakInfos: [ClassBreakInfo]?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .constant("type", "classBreaks"),
            .string("field", { $0.field }, { $0.field = $1 }),
            .double("minValue", { $0.minValue }, { $0.minValue = $1 }),
            .string("classificationMethod", { $0.classificationMethod }, { $0.classificationMethod = $1 }),
            .string("normalizationType", { $0.normalizationType }, { $0.normalizationType = $1 }),
            .string("normalizationField", { $0.normalizationField }, { $0.normalizationField = $1 }),
            .model("defaultSymbol", { $0.defaultSymbol }, { $0.defaultSymbol = $1 }),
            .string("defaultLabel", { $0.defaultLabel }, { $0.defaultLabel = $1 }),
            .models("classBreakInfos", { $0.classBreakInfos }, { $0.classBreakInfos = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(field: String, minValue: Double, infos: [ClassBreakInfo]) {
        self.init(original: ["type": "classBreaks"])
        self.field = field
        self.minValue = minValue
        self.classBreakInfos = infos
    }
}

/// One class of a class breaks renderer: values up to `classMaxValue`.
public struct ClassBreakInfo: JSONRecord {
    public var classMinValue: Double?
    public var classMaxValue: Double?
    public var label: String?
    public var description: String?
    public var symbol: Symbol?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .double("classMinValue", { $0.classMinValue }, { $0.classMinValue = $1 }),
            .double("classMaxValue", { $0.classMaxValue }, { $0.classMaxValue = $1 }),
            .string("label", { $0.label }, { $0.label = $1 }),
            .string("description", { $0.description }, { $0.description = $1 }),
            .model("symbol", { $0.symbol }, { $0.symbol = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(classMaxValue: Double, label: String, symbol: Symbol) {
        self.init(original: JSONObject())
        self.classMaxValue = classMaxValue
        self.label = label
        self.symbol = symbol
    }
}
