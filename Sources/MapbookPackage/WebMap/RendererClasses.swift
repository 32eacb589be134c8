#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MapbookSupport

/// The classes of a web map renderer: which class, and so which symbol, a feature's values
/// fall in, and what a legend lists. The one reading of renderers that map drawing (per
/// feature) and vector tile styles (compiled into MapLibre expressions) share.
///
/// Follows the ArcGIS web map specification's renderer objects
/// (https://developers.arcgis.com/web-map-specification/objects/renderer/):
/// - `simple`: every feature is in its one class.
/// - `uniqueValue`: the values of `field1`, `field2`, `field3` are joined by `fieldDelimiter`
///   ("," when absent; an empty delimiter joins them with nothing between) and compared with
///   each `uniqueValueInfos` value, the first class listed winning. A null value reads
///   "<Null>", as ArcGIS writes it; a number, or text that reads as one, is compared as a
///   number, so 3, 3.0 and "3.0" are one value (see `RendererValue`); other text exactly.
/// - `classBreaks`: the value of `field` (normalised by `normalizationType`: by
///   `normalizationField`, by log, or as a percent of `normalizationTotal`) falls in the
///   first class, in order of `classMaxValue`, that runs from its `classMinValue` (else the
///   previous class's maximum, the first class's from the renderer's `minValue`) up to and
///   including its `classMaxValue`. A value that is missing, not a number, or cannot be
///   normalised (a zero divisor, the log of zero) is in no class.
/// A feature in no class takes the default class (`defaultSymbol`, `defaultLabel`); its symbol
/// may be nil, and so may a class's: such features are not drawn. Other renderer types
/// (heatmap, dictionary) have no classes. The renderer's `visualVariables` (`VisualVariable`)
/// then change the class's symbol per feature: colour, size, opacity, rotation. Arcade
/// expressions are not evaluated.
public struct RendererClasses: Sendable {
    /// One class: a symbol and how the legend names it.
    public struct Class: Sendable, Equatable {
        public var symbol: Symbol?
        public var label: String
        public var description: String?
    }

    /// How a feature's values pick a class.
    public enum Selector: Sendable {
        /// Every feature is in class 0 (`simple`).
        case single
        case uniqueValues(UniqueValues)
        case classBreaks(ClassBreaks)
        /// A renderer type without classes: nothing is drawn.
        case unsupported
    }

    public let renderer: Renderer
    public let selector: Selector
    /// The classes, in the renderer's order.
    public let classes: [Class]
    /// The class of features in no other class; nil for `simple` and unsupported renderers.
    public let defaultClass: Class?
    /// The renderer's visual variables of the kinds modelled, in order (inert ones included,
    /// with their `problem`).
    public let visualVariables: [VisualVariable]

    public init(_ renderer: Renderer) {
        self.renderer = renderer
        visualVariables = (renderer.json.array("visualVariables") ?? []).compactMap { $0.objectValue.flatMap(VisualVariable.init(json:)) }
        switch renderer {
        case .simple(let r):
            selector = .single
            classes = [Class(symbol: r.symbol, label: r.label ?? "", description: r.description)]
            defaultClass = nil
        case .uniqueValue(let r):
            let infos = r.uniqueValueInfos ?? []
            selector = .uniqueValues(UniqueValues(r))
            classes = infos.map { Class(symbol: $0.symbol, label: $0.label ?? $0.valueText ?? "", description: $0.description) }
            defaultClass = Class(symbol: r.defaultSymbol, label: r.defaultLabel ?? Self.otherLabel, description: nil)
        case .classBreaks(let r):
            let breaks = ClassBreaks(r)
            selector = .classBreaks(breaks)
            classes = (r.classBreakInfos ?? []).enumerated().map { i, info in
                let range = breaks.ranges.first { $0.classIndex == i }
                let label = info.label ?? range.map { Self.rangeLabel(lower: $0.lower, upper: $0.upper) } ?? ""
                return Class(symbol: info.symbol, label: label, description: info.description)
            }
            defaultClass = Class(symbol: r.defaultSymbol, label: r.defaultLabel ?? Self.otherLabel, description: nil)
        case .other:
            selector = .unsupported
            classes = []
            defaultClass = nil
        }
    }

    /// The label of the default class when the renderer gives none, as ArcGIS's legend and
    /// this toolkit's packager write it.
    public static let otherLabel = "Other"

    /// "min – max" for a class break without a label.
    static func rangeLabel(lower: Double?, upper: Double) -> String {
        guard let lower else { return "≤ " + JSONWriter.formatNumber(upper) }
        return JSONWriter.formatNumber(lower) + " – " + JSONWriter.formatNumber(upper)
    }

    /// The class a feature with these field values is in: an index into `classes`, or nil for
    /// the default class (and for every feature of an unsupported renderer).
    ///
    /// `value` gives the value of a field by name, `.null` when the feature has none.
    public func classIndex(_ value: (String) -> JSONValue) -> Int? {
        switch selector {
        case .single: return 0
        case .uniqueValues(let u): return u.classIndex(u.key(value))
        case .classBreaks(let b): return b.classIndex(b.value(value))
        case .unsupported: return nil
        }
    }

    /// The symbol of a feature with these field values, or nil when it is not drawn: its
    /// class's symbol as the visual variables style it.
    public func symbol(_ value: (String) -> JSONValue) -> Symbol? {
        if case .unsupported = selector { return nil }
        guard var symbol = classIndex(value).map({ classes[$0].symbol }) ?? defaultClass?.symbol else { return nil }
        for variable in visualVariables {
            if let x = variable.value(value) { symbol = variable.apply(to: symbol, value: x) }
        }
        return symbol
    }

    /// The fields the visual variables read, in order.
    public var visualVariableFields: [String] {
        visualVariables.flatMap { [$0.field, $0.normalizationField].compactMap { $0 } }
    }

    /// A legend entry: a symbol and its label.
    public struct LegendEntry: Sendable, Equatable {
        public var label: String
        public var symbol: Symbol

        public init(label: String, symbol: Symbol) {
            self.label = label
            self.symbol = symbol
        }
    }

    /// What a legend lists for the renderer: its classes in order, then the default class;
    /// classes without a symbol draw nothing and are left out.
    public var legend: [LegendEntry] {
        (classes + (defaultClass.map { [$0] } ?? [])).compactMap { c in
            c.symbol.map { LegendEntry(label: c.label, symbol: $0) }
        }
    }

    /// A visual variable's part of the legend: the field it reads (the legend's heading) and
    /// its stops drawn with the renderer's first symbol.
    public struct VariableLegend: Sendable, Equatable {
        public var kind: VisualVariable.Kind
        public var field: String
        public var entries: [LegendEntry]
    }

    /// What the legend shows below the classes for each active visual variable but rotation.
    public var variableLegends: [VariableLegend] {
        guard let base = (classes + (defaultClass.map { [$0] } ?? [])).lazy.compactMap(\.symbol).first else { return [] }
        return visualVariables.compactMap { v in
            let entries = v.legend(base: base)
            guard !entries.isEmpty, let field = v.field else { return nil }
            return VariableLegend(kind: v.kind, field: field, entries: entries)
        }
    }
}

extension RendererClasses {
    /// A `uniqueValue` renderer's classes by the key of their values.
    public struct UniqueValues: Sendable {
        public let fields: [String]
        public let delimiter: String
        /// The key of each class the features can reach, and the class it picks: the first
        /// class listed for a key wins.
        public let keys: [(key: String, classIndex: Int)]
        /// Whether a class's key has a number, "<Null>" or an empty value among its
        /// components, so that a feature's key must be read with `RendererValue.keyText`; when
        /// false, each field's value as plain text gives the same class.
        public let needsValueReading: Bool
        private let index: [String: Int]

        init(_ r: UniqueValueRenderer) {
            fields = [r.field1, r.field2, r.field3].compactMap { $0 }.filter { !$0.isEmpty }
            delimiter = r.fieldDelimiter ?? ","
            var keys: [(key: String, classIndex: Int)] = []
            var index: [String: Int] = [:]
            var needsReading = false
            for (i, info) in (r.uniqueValueInfos ?? []).enumerated() {
                guard let text = info.valueText else { continue }
                let components = fields.count > 1 ? Self.split(text, by: delimiter) : [text]
                let key: String
                if components.count == fields.count {
                    key = components.map(RendererValue.keyText(of:)).joined(separator: delimiter)
                    if components.contains(where: { RendererValue.number(reading: $0) != nil || $0 == RendererValue.nullText || $0.isEmpty }) {
                        needsReading = true
                    }
                } else {
                    // Not one component per field (an empty delimiter, or one inside a value):
                    // compared as written.
                    key = text
                    if fields.count > 1 && (delimiter.isEmpty || components.count > fields.count) { needsReading = true }
                }
                if index[key] == nil {
                    index[key] = i
                    keys.append((key, i))
                }
            }
            self.keys = keys
            self.index = index
            needsValueReading = needsReading
        }

        /// The key of a feature's values: each field's value read by `RendererValue.keyText`,
        /// joined by the delimiter.
        public func key(_ value: (String) -> JSONValue) -> String {
            fields.map { RendererValue.keyText(of: value($0)) }.joined(separator: delimiter)
        }

        func classIndex(_ key: String) -> Int? {
            fields.isEmpty ? nil : index[key]
        }

        static func split(_ text: String, by delimiter: String) -> [String] {
            guard !delimiter.isEmpty else { return [text] }
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

    /// A `classBreaks` renderer's classes as ranges of the (normalised) value.
    public struct ClassBreaks: Sendable {
        /// How the field's value is normalised before it is classed.
        public enum Normalization: Sendable, Equatable {
            case none
            /// Divided by another field's value; no class when that is zero or missing.
            case byField(String)
            /// The base-10 logarithm; no class for values of zero or less.
            case byLog
            /// A percent of the total; no class when the total is zero or missing.
            case percentOfTotal(Double?)
            /// By a field the renderer does not name: no feature is in a class.
            case impossible
        }

        /// A class's range, `lower` (inclusive; unbounded when nil) to `upper` (inclusive).
        public struct Range: Sendable, Equatable {
            public var lower: Double?
            public var upper: Double
            public var classIndex: Int

            public init(lower: Double?, upper: Double, classIndex: Int) {
                self.lower = lower
                self.upper = upper
                self.classIndex = classIndex
            }
        }

        public let field: String?
        public let normalization: Normalization
        /// Ranges in order of their maximum: a value is in the first range that holds it.
        public let ranges: [Range]

        init(_ r: ClassBreaksRenderer) {
            field = r.field.flatMap { $0.isEmpty ? nil : $0 }
            switch r.normalizationType {
            case "esriNormalizeByField": normalization = r.normalizationField.map { .byField($0) } ?? .impossible
            case "esriNormalizeByLog": normalization = .byLog
            case "esriNormalizeByPercentOfTotal": normalization = .percentOfTotal(r.original.double("normalizationTotal"))
            default: normalization = .none
            }
            // Classes are breaks on the number line: each runs up from the previous maximum,
            // whatever order they are listed in.
            let infos = (r.classBreakInfos ?? []).enumerated()
                .compactMap { i, info in info.classMaxValue.flatMap { $0.isNaN ? nil : (i, info, $0) } }
                .sorted { $0.2 < $1.2 }
            var ranges: [Range] = []
            var previousMax = r.minValue
            for (n, (i, info, upper)) in infos.enumerated() {
                let lower = info.classMinValue ?? (n == 0 ? r.minValue : previousMax)
                ranges.append(Range(lower: lower, upper: upper, classIndex: i))
                previousMax = upper
            }
            self.ranges = ranges
        }

        /// The value a feature is classed by, or nil when it has none.
        public func value(_ value: (String) -> JSONValue) -> Double? {
            guard let field, let x = RendererValue.number(value(field)) else { return nil }
            let result: Double
            switch normalization {
            case .none: result = x
            case .byField(let name):
                guard let divisor = RendererValue.number(value(name)), divisor != 0 else { return nil }
                result = x / divisor
            case .byLog:
                guard x > 0 else { return nil }
                result = log10(x)
            case .percentOfTotal(let total):
                guard let total, total != 0, total.isFinite else { return nil }
                result = x / total * 100
            case .impossible:
                return nil
            }
            return result.isFinite ? result : nil
        }

        func classIndex(_ value: Double?) -> Int? {
            guard let value else { return nil }
            return ranges.first { ($0.lower.map { $0 <= value } ?? true) && value <= $0.upper }?.classIndex
        }

        /// Whether each range starts where the one before ends, with strictly rising maxima:
        /// then the ranges are a `step` between the first lower bound and the last maximum.
        public var isContiguous: Bool {
            zip(ranges, ranges.dropFirst()).allSatisfy { a, b in b.lower == a.upper && b.upper > a.upper }
        }
    }
}
