import MapbookSupport

/// One entry of a layer's `labelingInfo`: which features get a label (`where`, scale range),
/// what it says (`labelExpressionInfo` or the older `labelExpression`), where it stands
/// (`labelPlacement`) and how it looks (an `esriTS` text symbol).
///
/// Label text is read from the expression forms that name fields: Arcade made of `$feature`
/// fields, text, `+`, `TextFormatting.NewLine` and `DomainName($feature, "FIELD")`; a `{FIELD}`
/// template (`labelExpressionInfo.value`); and `[FIELD] CONCAT "text"`. Any other Arcade is not
/// run: `problem` says so and the class draws nothing.
public struct LabelClass: JSONRecord {
    /// A piece of a label's text.
    public enum Part: Sendable, Equatable {
        case text(String)
        /// A field's value; `domainName`: its coded value's name rather than its code.
        case field(String, domainName: Bool)
    }

    /// The label's text, piece by piece; empty with a `problem` when the expression is not read.
    public var parts: [Part]
    /// Why the class draws nothing (an expression this reader does not run), else nil.
    public var problem: String?
    public var placement: String?
    public var symbol: TextSymbol
    public var minScale: Double?
    public var maxScale: Double?
    /// A SQL filter on the features labelled (ArcGIS `where`).
    public var whereClause: String?
    /// Whether fields with coded value domains show their names (ArcGIS default true).
    public var useCodedValues: Bool
    /// Whether labels may overlap others (`deconflictionStrategy: none` or
    /// `allowOverlapOfLabel: allow`).
    public var allowOverlap: Bool
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .string("labelPlacement", { $0.placement }, { $0.placement = $1 }),
            .requiredModel("symbol", { $0.symbol }, { $0.symbol = $1 }),
            .double("minScale", { $0.minScale }, { $0.minScale = $1 }),
            .double("maxScale", { $0.maxScale }, { $0.maxScale = $1 }),
            .string("where", { $0.whereClause }, { $0.whereClause = $1 }, from: { $0.stringValue.flatMap { $0.isEmpty ? nil : $0 } }),
        ]
    }

    /// A class over `original` with a plain text symbol; the text (`parts`, `problem`),
    /// `useCodedValues` and `allowOverlap`, which are read and never written, follow from it.
    public init(original json: JSONObject) {
        original = json
        symbol = TextSymbol(original: ["type": "esriTS"])
        useCodedValues = json.bool("useCodedValues") ?? true
        allowOverlap = json.string("deconflictionStrategy") == "none" || json.string("allowOverlapOfLabel") == "allow"
        let info = json.object("labelExpressionInfo")
        if let arcade = info?.string("expression") {
            (parts, problem) = Self.arcade(arcade)
        } else if let template = info?.string("value") {
            (parts, problem) = (Self.template(template), nil)
        } else if let legacy = json.string("labelExpression") {
            (parts, problem) = Self.legacy(legacy)
        } else {
            (parts, problem) = ([], "the label class has no labelExpressionInfo or labelExpression")
        }
    }

    /// A class labelling every feature with `field`'s value.
    public init(field: String, symbol: TextSymbol, placement: String? = nil) {
        self.init(json: [
            "labelExpressionInfo": .object(["expression": .string("$feature[\"\(field)\"]")]),
            "symbol": symbol.jsonValue,
        ])
        if let placement { self.placement = placement }
    }

    /// The fields the text reads, in order, each once.
    public var fields: [String] {
        var out: [String] = []
        for case .field(let name, _) in parts where !out.contains(name) { out.append(name) }
        return out
    }

    /// Whether the class labels at `scale` (1:scale): within `minScale` (the smallest scale,
    /// 0 for none) and `maxScale` (the largest, 0 for none).
    public func isInScale(_ scale: Double) -> Bool {
        if let minScale, minScale > 0, scale > minScale { return false }
        if let maxScale, maxScale > 0, scale < maxScale { return false }
        return true
    }

    /// The text for a feature, given each field's value as text.
    public func text(_ value: (_ field: String, _ domainName: Bool) -> String) -> String {
        parts.map { part in
            switch part {
            case .text(let s): return s
            case .field(let name, let domainName): return value(name, domainName)
            }
        }.joined()
    }

    /// Arcade made of `$feature.NAME`, `$feature["NAME"]`, `DomainName($feature, "NAME")`,
    /// quoted text, `TextFormatting.NewLine` and `+`, optionally with `return` and a final `;`.
    static func arcade(_ expression: String) -> ([Part], String?) {
        var s = Substring(expression.trimmingWhitespace())
        if s.hasPrefix("return ") { s = s.dropFirst(7) }
        if s.hasSuffix(";") { s = s.dropLast() }
        var parts: [Part] = []
        func fail() -> ([Part], String?) {
            ([], "the Arcade label expression '\(expression)' is not run: only $feature fields, DomainName, text, TextFormatting.NewLine and + are read")
        }
        func skipSpace() { while let c = s.first, c.isWhitespace { s.removeFirst() } }
        func quoted() -> String? {
            guard let q = s.first, q == "\"" || q == "'" else { return nil }
            s.removeFirst()
            var out = ""
            while let c = s.first {
                s.removeFirst()
                if c == q { return out }
                if c == "\\", let n = s.first {
                    s.removeFirst()
                    out.append(n == "n" ? "\n" : n)
                } else {
                    out.append(c)
                }
            }
            return nil
        }
        while true {
            skipSpace()
            if s.hasPrefix("$feature.") {
                s = s.dropFirst(9)
                let name = s.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                guard !name.isEmpty else { return fail() }
                s = s.dropFirst(name.count)
                parts.append(.field(String(name), domainName: false))
            } else if s.hasPrefix("$feature[") {
                s = s.dropFirst(9)
                guard let name = quoted() else { return fail() }
                skipSpace()
                guard s.first == "]" else { return fail() }
                s.removeFirst()
                parts.append(.field(name, domainName: false))
            } else if s.hasPrefix("DomainName(") {
                s = s.dropFirst(11)
                skipSpace()
                guard s.hasPrefix("$feature") else { return fail() }
                s = s.dropFirst(8)
                skipSpace()
                guard s.first == "," else { return fail() }
                s.removeFirst()
                skipSpace()
                guard let name = quoted() else { return fail() }
                skipSpace()
                guard s.first == ")" else { return fail() }
                s.removeFirst()
                parts.append(.field(name, domainName: true))
            } else if s.hasPrefix("TextFormatting.NewLine") {
                s = s.dropFirst(22)
                parts.append(.text("\n"))
            } else if let text = quoted() {
                parts.append(.text(text))
            } else {
                return fail()
            }
            skipSpace()
            if s.isEmpty { return (parts, nil) }
            guard s.first == "+" else { return fail() }
            s.removeFirst()
        }
    }

    /// `{FIELD}` placeholders in text.
    static func template(_ value: String) -> [Part] {
        var parts: [Part] = []
        var rest = Substring(value)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            if open > rest.startIndex { parts.append(.text(String(rest[..<open]))) }
            parts.append(.field(String(rest[rest.index(after: open)..<close]), domainName: false))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        return parts
    }

    /// ArcGIS Server's `[FIELD] CONCAT "text" CONCAT NEWLINE ...`.
    static func legacy(_ expression: String) -> ([Part], String?) {
        var parts: [Part] = []
        var s = Substring(expression)
        while true {
            while let c = s.first, c.isWhitespace { s.removeFirst() }
            guard let c = s.first else { return (parts, nil) }
            if c == "[", let close = s.firstIndex(of: "]") {
                parts.append(.field(String(s[s.index(after: s.startIndex)..<close]), domainName: false))
                s = s[s.index(after: close)...]
            } else if c == "\"", let close = s.dropFirst().firstIndex(of: "\"") {
                parts.append(.text(String(s[s.index(after: s.startIndex)..<close])))
                s = s[s.index(after: close)...]
            } else if s.hasPrefix("CONCAT") {
                s = s.dropFirst(6)
            } else if s.hasPrefix("NEWLINE") {
                s = s.dropFirst(7)
                parts.append(.text("\n"))
            } else {
                return ([], "the label expression '\(expression)' is not read: only [FIELD], \"text\", CONCAT and NEWLINE are")
            }
        }
    }
}

/// `esriTS`: a label's text symbol.
public struct TextSymbol: JSONRecord {
    public var color: RGBAColor?
    public var haloColor: RGBAColor?
    /// Halo width in points.
    public var haloSize: Double?
    public var fontFamily: String?
    /// Points.
    public var fontSize: Double?
    /// "normal", "bold", "bolder", "lighter".
    public var fontWeight: String?
    /// "normal", "italic", "oblique".
    public var fontStyle: String?
    /// Points, right and up.
    public var xoffset: Double?
    public var yoffset: Double?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .constant("type", "esriTS"),
            .color("color", { $0.color }, { $0.color = $1 }),
            .color("haloColor", { $0.haloColor }, { $0.haloColor = $1 }),
            .double("haloSize", { $0.haloSize }, { $0.haloSize = $1 }),
            .nested("font", .string("family", { $0.fontFamily }, { $0.fontFamily = $1 })),
            .nested("font", .double("size", { $0.fontSize }, { $0.fontSize = $1 })),
            .nested("font", .string("weight", { $0.fontWeight }, { $0.fontWeight = $1 })),
            .nested("font", .string("style", { $0.fontStyle }, { $0.fontStyle = $1 })),
            .double("xoffset", { $0.xoffset }, { $0.xoffset = $1 }),
            .double("yoffset", { $0.yoffset }, { $0.yoffset = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(color: RGBAColor, size: Double, family: String? = nil, weight: String? = nil, haloColor: RGBAColor? = nil, haloSize: Double? = nil) {
        self.init(original: ["type": "esriTS"])
        self.color = color
        self.fontSize = size
        self.fontFamily = family
        self.fontWeight = weight
        self.haloColor = haloColor
        self.haloSize = haloSize
    }
}
