import MapbookData
import MapbookPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A web map renderer made ready to pick the symbol of each feature of a layer.
///
/// Follows the ArcGIS web map specification's renderer objects: `simple` gives its symbol;
/// `uniqueValue` matches the values of `field1` (then `field2`, `field3`, joined by
/// `fieldDelimiter`, "," when absent) to its `uniqueValueInfos`; `classBreaks` finds the first
/// class whose `classMaxValue` is at least the field's value, the first class starting at the
/// renderer's `minValue`. A feature no class takes gets the `defaultSymbol`, which may be nil:
/// then it is not drawn. Other renderer types (heatmap, dictionary) give no symbol.
/// Visual variables, rotation expressions and Arcade expressions are not evaluated.
public struct LayerStyle: Sendable {
    public let renderer: Renderer
    private let kind: Kind

    private enum Kind: Sendable {
        case simple(Symbol?)
        case uniqueValue(UniqueValues)
        case classBreaks(ClassBreaks)
        case unsupported
    }

    public init(renderer: Renderer) {
        self.renderer = renderer
        switch renderer {
        case .simple(let r): kind = .simple(r.symbol)
        case .uniqueValue(let r): kind = .uniqueValue(UniqueValues(r))
        case .classBreaks(let r): kind = .classBreaks(ClassBreaks(r))
        case .other: kind = .unsupported
        }
    }

    /// The symbol of a feature with `attributes` (field name to value), or nil when the
    /// feature is not drawn.
    ///
    /// Field names match exactly, else ignoring case (GeoPackage column names are case-insensitive).
    public func symbol(for attributes: [String: FieldValue]) -> Symbol? {
        switch kind {
        case .simple(let symbol): return symbol
        case .uniqueValue(let values): return values.symbol(for: attributes)
        case .classBreaks(let breaks): return breaks.symbol(for: attributes)
        case .unsupported: return nil
        }
    }

    /// The value of `field` in `attributes`, matching the name exactly, else ignoring case;
    /// `.null` when absent.
    static func value(_ field: String, in attributes: [String: FieldValue]) -> FieldValue {
        if let value = attributes[field] { return value }
        let lowered = field.lowercased()
        return attributes.first { $0.key.lowercased() == lowered }?.value ?? .null
    }
}

/// A `uniqueValue` renderer's classes, looked up by the text of the feature's values.
private struct UniqueValues: Sendable {
    let fields: [String]
    let delimiter: String
    /// Symbols by the value as written, components joined by the delimiter.
    var exact: [String: Symbol] = [:]
    /// Symbols by the value with each component trimmed and numbers in one form ("3", "3.0"
    /// and 3 are the same), for values written differently from how the data holds them.
    var lenient: [String: Symbol] = [:]
    let defaultSymbol: Symbol?

    init(_ renderer: UniqueValueRenderer) {
        fields = [renderer.field1, renderer.field2, renderer.field3].compactMap { $0 }
        let delimiter = renderer.fieldDelimiter.flatMap { $0.isEmpty ? nil : $0 } ?? ","
        self.delimiter = delimiter
        defaultSymbol = renderer.defaultSymbol
        for info in renderer.uniqueValueInfos ?? [] {
            guard let text = info.valueText, let symbol = info.symbol else { continue }
            // The first class listed for a value wins, as in ArcGIS.
            if exact[text] == nil { exact[text] = symbol }
            let components = fields.count > 1 ? Self.split(text, by: delimiter) : [text]
            let key = Self.lenientKey(components.count == fields.count ? components : [text])
            if lenient[key] == nil { lenient[key] = symbol }
        }
    }

    func symbol(for attributes: [String: FieldValue]) -> Symbol? {
        guard !fields.isEmpty else { return defaultSymbol }
        // Esri writes a null value as "<Null>".
        let components = fields.map { LayerStyle.value($0, in: attributes).displayText ?? "<Null>" }
        if let symbol = exact[components.joined(separator: delimiter)] { return symbol }
        return lenient[Self.lenientKey(components)] ?? defaultSymbol
    }

    static func lenientKey(_ components: [String]) -> String {
        components.map { component in
            let trimmed = component.trimmedOfSpaces
            if let number = Double(trimmed), number.isFinite { return JSONWriter.formatNumber(number == 0 ? 0 : number) }
            return trimmed
        }.joined(separator: "\u{1F}")
    }

    static func split(_ text: String, by delimiter: String) -> [String] {
        var parts: [String] = []
        var rest = Substring(text)
        while let range = rest.firstRange(of: delimiter) {
            parts.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        parts.append(String(rest))
        return parts
    }
}

/// A `classBreaks` renderer's classes as ranges.
private struct ClassBreaks: Sendable {
    struct Range: Sendable {
        var lower: Double?
        var upper: Double
        var symbol: Symbol?
    }

    let field: String?
    let normalization: String?
    let normalizationField: String?
    let normalizationTotal: Double?
    var ranges: [Range] = []
    let defaultSymbol: Symbol?

    init(_ renderer: ClassBreaksRenderer) {
        field = renderer.field
        normalization = renderer.normalizationType
        normalizationField = renderer.normalizationField
        normalizationTotal = renderer.original.double("normalizationTotal")
        defaultSymbol = renderer.defaultSymbol
        var previousMax = renderer.minValue
        for (i, info) in (renderer.classBreakInfos ?? []).enumerated() {
            guard let upper = info.classMaxValue, !upper.isNaN else { continue }
            // A class starts at its classMinValue when written, else where the one before ended
            // (the first at the renderer's minValue).
            let lower = info.classMinValue ?? (i == 0 ? renderer.minValue : previousMax)
            ranges.append(Range(lower: lower, upper: upper, symbol: info.symbol))
            previousMax = upper
        }
    }

    func symbol(for attributes: [String: FieldValue]) -> Symbol? {
        guard let field, let value = Self.number(LayerStyle.value(field, in: attributes)),
            let normalized = normalize(value, attributes)
        else { return defaultSymbol }
        for range in ranges where normalized <= range.upper {
            if let lower = range.lower, normalized < lower { continue }
            return range.symbol
        }
        return defaultSymbol
    }

    /// The value the classes are read against, or nil when it has none (division by zero,
    /// the logarithm of zero).
    private func normalize(_ value: Double, _ attributes: [String: FieldValue]) -> Double? {
        let result: Double
        switch normalization {
        case "esriNormalizeByField":
            guard let name = normalizationField, let divisor = Self.number(LayerStyle.value(name, in: attributes)),
                divisor != 0
            else { return nil }
            result = value / divisor
        case "esriNormalizeByLog":
            guard value > 0 else { return nil }
            result = log10(value)
        case "esriNormalizeByPercentOfTotal":
            guard let total = normalizationTotal, total != 0 else { return nil }
            result = value / total * 100
        default:
            result = value
        }
        return result.isFinite ? result : nil
    }

    /// A numeric value, or text that reads as one.
    static func number(_ value: FieldValue) -> Double? {
        if let d = value.double { return d.isNaN ? nil : d }
        if case .text(let s) = value { return Double(s.trimmedOfSpaces) }
        return nil
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and line breaks.
    var trimmedOfSpaces: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" || c == "\r" || c == "\n" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" || c == "\n" { s.removeLast() }
        return String(s)
    }
}
