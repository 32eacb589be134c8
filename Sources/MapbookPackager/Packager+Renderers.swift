import MapbookPackage
import MapbookSupport

/// Renderers written in the project file's short form, completed from the data:
///
///     renderer: { uniqueValue: { field: MATERIAL } }                  colours for the values found
///     renderer: { uniqueValue: { field: TYPE, values: { Gate: "#0072b2" } } }
///     renderer: { classBreaks: { field: DIAMETER, breaks: [4, 8, 12, 24] } }
///     renderer: { classBreaks: { field: DIAMETER, method: natural-breaks, classes: 5 } }
///     renderer: { simple: { color: "#d55e00", size: 8, width: 2 } }
///
/// A renderer with a "type" key is web-map JSON and used as given.
enum RendererShorthand {
    /// Okabe-Ito, then Paul Tol's "muted": 16 colours told apart with the common colour-vision
    /// deficiencies. Values beyond them share the "Other" symbol.
    static let qualitative: [RGBAColor] = [
        RGBAColor(red: 0, green: 114, blue: 178), RGBAColor(red: 213, green: 94, blue: 0),
        RGBAColor(red: 0, green: 158, blue: 115), RGBAColor(red: 204, green: 121, blue: 167),
        RGBAColor(red: 230, green: 159, blue: 0), RGBAColor(red: 86, green: 180, blue: 233),
        RGBAColor(red: 240, green: 228, blue: 66), RGBAColor(red: 0, green: 0, blue: 0),
        RGBAColor(red: 51, green: 34, blue: 136), RGBAColor(red: 136, green: 204, blue: 238),
        RGBAColor(red: 68, green: 170, blue: 153), RGBAColor(red: 17, green: 119, blue: 51),
        RGBAColor(red: 153, green: 153, blue: 51), RGBAColor(red: 221, green: 204, blue: 119),
        RGBAColor(red: 204, green: 102, blue: 119), RGBAColor(red: 136, green: 34, blue: 85),
    ]

    /// The "Other" class: values no class of the renderer holds.
    static let other = RGBAColor(red: 153, green: 153, blue: 153)

    /// Viridis anchors: a sequential ramp readable in grey and by colour-blind readers.
    static let sequential: [RGBAColor] = [
        RGBAColor(red: 253, green: 231, blue: 37), RGBAColor(red: 94, green: 201, blue: 98),
        RGBAColor(red: 33, green: 145, blue: 140), RGBAColor(red: 59, green: 82, blue: 139),
        RGBAColor(red: 68, green: 1, blue: 84),
    ]

    static func ramp(_ count: Int) -> [RGBAColor] {
        guard count > 1 else { return [sequential[2]] }
        return (0..<count).map { i in
            let t = Double(i) / Double(count - 1) * Double(sequential.count - 1)
            let a = sequential[min(Int(t), sequential.count - 1)], b = sequential[min(Int(t) + 1, sequential.count - 1)]
            let f = t - Double(Int(t))
            func mix(_ x: Int, _ y: Int) -> Int { Int((Double(x) + (Double(y) - Double(x)) * f).rounded()) }
            return RGBAColor(red: mix(a.red, b.red), green: mix(a.green, b.green), blue: mix(a.blue, b.blue))
        }
    }

    /// A symbol of `color` for the layer's geometry.
    static func symbol(_ color: RGBAColor, geometryType: String?, size: Double? = nil, width: Double? = nil) -> Symbol {
        let type = (geometryType ?? "").lowercased()
        let outline = SimpleLineSymbol(color: RGBAColor(red: 51, green: 51, blue: 51), width: 0.75)
        if type.contains("point") { return .simpleMarker(SimpleMarkerSymbol(color: color, size: size ?? 7, outline: outline)) }
        if type.contains("line") || type.contains("curve") { return .simpleLine(SimpleLineSymbol(color: color, width: width ?? 2)) }
        var fill = color
        fill.alpha = 150
        return .simpleFill(SimpleFillSymbol(color: fill, outline: SimpleLineSymbol(color: color, width: width ?? 1)))
    }

    static func color(_ text: String) -> RGBAColor? {
        var hex = text.hasPrefix("#") ? String(text.dropFirst()) : text
        if hex.count == 3 { hex = hex.map { "\($0)\($0)" }.joined() }
        guard hex.count == 6 || hex.count == 8, let v = UInt32(hex, radix: 16) else { return nil }
        if hex.count == 8 {
            return RGBAColor(red: Int(v >> 24 & 255), green: Int(v >> 16 & 255), blue: Int(v >> 8 & 255), alpha: Int(v & 255))
        }
        return RGBAColor(red: Int(v >> 16 & 255), green: Int(v >> 8 & 255), blue: Int(v & 255))
    }

    /// The field's values that are numbers (numeric cells, and text cells that spell one, as
    /// renderers read them), sorted; and the non-empty cells that are not numbers, with one.
    static func numbers(_ database: SQLiteDatabase, table: String, field: String) throws -> (values: [Double], unreadable: Int, example: String?) {
        let q = SQLiteDatabase.quote
        var values: [Double] = []
        var unreadable = 0
        var example: String?
        for row in try database.query("SELECT \(q(field)) FROM \(q(table)) WHERE \(q(field)) IS NOT NULL") {
            switch row[0] {
            case .integer(let i): values.append(Double(i))
            case .real(let d) where d.isFinite: values.append(d)
            case .text(let t):
                if let d = RendererValue.number(reading: t) {
                    values.append(d)
                } else if !t.allSatisfy(\.isWhitespace) {
                    unreadable += 1
                    if example == nil { example = t }
                }
            default: unreadable += 1
            }
        }
        values.sort()
        return (values, unreadable, example)
    }

    /// At most `limit` of sorted `values`, evenly spread, for the classification methods.
    static func sample(_ values: [Double], limit: Int = 5000) -> [Double] {
        guard values.count > limit else { return values }
        return (0..<limit).map { values[$0 * (values.count - 1) / (limit - 1)] }
    }

    /// Class upper bounds by quantile, equal interval or Jenks natural breaks.
    static func breaks(_ values: [Double], method: String, classes k: Int) -> [Double]? {
        guard let lo = values.first, let hi = values.last, k >= 1 else { return nil }
        switch method {
        case "equal-interval", "equal_interval", "equalinterval":
            return (1...k).map { lo + (hi - lo) * Double($0) / Double(k) }
        case "quantile":
            return (1...k).map { values[min(values.count - 1, Int((Double(values.count) * Double($0) / Double(k)).rounded(.up)) - 1)] }
        case "natural-breaks", "natural_breaks", "jenks":
            return jenks(values, k)
        default:
            return nil
        }
    }

    /// Jenks-Fisher optimal classification of sorted values (dynamic programming, O(k n²)).
    static func jenks(_ data: [Double], _ k: Int) -> [Double] {
        let n = data.count
        guard n > k else { return Array(Set(data)).sorted() }
        var lower = [[Int]](repeating: [Int](repeating: 0, count: k + 1), count: n + 1)
        var variance = [[Double]](repeating: [Double](repeating: .infinity, count: k + 1), count: n + 1)
        for j in 1...k {
            lower[1][j] = 1
            variance[1][j] = 0
        }
        for l in 2...n {
            var s1 = 0.0, s2 = 0.0, w = 0.0, v = 0.0
            for m in 1...l {
                let i = l - m + 1
                let value = data[i - 1]
                s2 += value * value
                s1 += value
                w += 1
                v = s2 - s1 * s1 / w
                let i4 = i - 1
                if i4 != 0 {
                    for j in 2...k where variance[l][j] >= v + variance[i4][j - 1] {
                        lower[l][j] = i
                        variance[l][j] = v + variance[i4][j - 1]
                    }
                }
            }
            lower[l][1] = 1
            variance[l][1] = v
        }
        var result = [Double](repeating: 0, count: k)
        result[k - 1] = data[n - 1]
        var count = k, position = n
        while count >= 2 {
            let id = lower[position][count] - 2
            result[count - 2] = data[max(id, 0)]
            position = lower[position][count] - 1
            count -= 1
        }
        return result
    }

    static func label(_ v: Double) -> String {
        if v == v.rounded() && abs(v) < 1e15 { return String(Int64(v)) }
        return String((v * 100).rounded() / 100)
    }
}

extension Packager.Context {
    /// The renderer a layer spec asks for, completed from the data when it is the short form.
    func renderer(for spec: Project.LayerSpec, source: Packager.ResolvedSource, index: Int, columnNames: [String]) throws -> Renderer? {
        guard case .object(let object)? = spec.renderer, object.count == 1, let (kind, body) = object.entries.first,
            ["uniqueValue", "classBreaks", "simple"].contains(kind), case .object(let options) = body
        else { return nil }
        let key = spec.key + ".renderer.\(kind)"
        func field() throws -> String {
            guard let f = options.string("field") else { throw error(.missingKey, key, spec.line, "a \(kind) renderer needs a 'field'") }
            try checkColumn(f, "renderer's field", of: source.table, columns: columnNames, key: key + ".field", line: spec.line)
            return f
        }
        func colorOption(_ name: String) throws -> RGBAColor? {
            guard let text = options.string(name) else { return nil }
            guard let c = RendererShorthand.color(text) else { throw error(.invalidValue, key + ".\(name)", spec.line, "'\(text)' is not a colour; write #rrggbb") }
            return c
        }
        let q = SQLiteDatabase.quote
        let database = try source.open()
        switch kind {
        case "simple":
            let color = try colorOption("color") ?? RendererShorthand.qualitative[index % 7]
            return .simple(SimpleRenderer(symbol: RendererShorthand.symbol(color, geometryType: source.geometryType, size: options["size"]?.doubleValue, width: options["width"]?.doubleValue)))
        case "uniqueValue":
            let f = try field()
            var given: [(String, RGBAColor)] = []
            if case .object(let values)? = options["values"] {
                for (value, colorValue) in values {
                    guard let text = colorValue.stringValue, let c = RendererShorthand.color(text) else {
                        throw error(.invalidValue, key + ".values.\(value)", spec.line, "the colour of '\(value)' must be #rrggbb")
                    }
                    given.append((value, c))
                }
            }
            var found = try database.query("SELECT \(q(f)) FROM \(q(source.table)) WHERE \(q(f)) IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1000")
                .compactMap { $0[0].text }
            // An editable field's coded values get their classes before any feature has them,
            // so a feature edited to a new code is drawn in its own colour, not "Other".
            var domainNames: [String: String] = [:]
            if let rule = editable[spec.source]?.rules.first(where: { $0.field == f }), case .codedValues(let coded)? = rule.domain {
                for value in coded {
                    guard let code = value.code.displayText else { continue }
                    domainNames[code] = value.name
                    if !found.contains(code) { found.append(code) }
                }
            }
            if !given.isEmpty {
                let names = Set(given.map(\.0))
                found = given.map(\.0) + found.filter { !names.contains($0) }
            }
            // Colours given in the project are not handed out again to other values.
            let taken = Set(given.map { "\($0.1.red),\($0.1.green),\($0.1.blue)" })
            let palette = RendererShorthand.qualitative.filter { !taken.contains("\($0.red),\($0.green),\($0.blue)") }
            let limit = given.count + palette.count
            if found.count > limit {
                warnings.add("\(spec.key).renderer: '\(f)' has \(found.count)\(found.count == 1000 ? "+" : "") values; the \(limit) most frequent get their own colour, the rest share \"Other\" (list colours with `values:` or use classBreaks)")
            }
            var infos: [UniqueValueInfo] = []
            var next = 0
            for value in found.prefix(limit) {
                let color: RGBAColor
                if let c = given.first(where: { $0.0 == value })?.1 {
                    color = c
                } else {
                    color = palette[next % max(palette.count, 1)]
                    next += 1
                }
                infos.append(UniqueValueInfo(value: value, label: domainNames[value] ?? value, symbol: RendererShorthand.symbol(color, geometryType: source.geometryType)))
            }
            infos.sort { a, b in (a.valueText ?? "").localizedStandardLess(b.valueText ?? "") }
            let renderer = Renderer.uniqueValue(UniqueValueRenderer(field: f, infos: infos, defaultSymbol: RendererShorthand.symbol(RendererShorthand.other, geometryType: source.geometryType), defaultLabel: RendererClasses.otherLabel))
            try report(renderer, of: spec, source: source, database: database)
            return renderer
        default:
            let f = try field()
            let numbers = try RendererShorthand.numbers(database, table: source.table, field: f)
            if numbers.unreadable > 0, !numbers.values.isEmpty {
                warnings.add("\(spec.key).renderer: \(numbers.unreadable) cell\(numbers.unreadable == 1 ? "" : "s") of '\(f)' \(numbers.unreadable == 1 ? "is" : "are") not a number (such as '\(numbers.example ?? "")'); \(numbers.unreadable == 1 ? "its feature is" : "their features are") drawn as \"Other\", the other \(numbers.values.count) classified")
            }
            var upper: [Double]
            if case .array(let items)? = options["breaks"] {
                upper = try items.map { item in
                    guard let d = item.doubleValue else { throw error(.invalidValue, key + ".breaks", spec.line, "breaks must be numbers") }
                    return d
                }
                guard upper == upper.sorted(), !upper.isEmpty else { throw error(.invalidValue, key + ".breaks", spec.line, "breaks must be numbers in increasing order") }
            } else {
                let method = options.string("method") ?? "natural-breaks"
                let classes = options["classes"]?.intValue ?? 5
                guard (1...12).contains(classes) else { throw error(.invalidValue, key + ".classes", spec.line, "classes must be between 1 and 12") }
                let values = RendererShorthand.sample(numbers.values)
                guard !values.isEmpty else {
                    throw error(.invalidValue, key + ".field", spec.line, "'\(f)' has no numeric values to classify" + (numbers.unreadable > 0 ? ": none of its \(numbers.unreadable) non-empty cells is a number (such as '\(numbers.example ?? "")')" : ": every cell is empty"))
                }
                guard let b = RendererShorthand.breaks(values, method: method, classes: classes) else {
                    throw error(.invalidValue, key + ".method", spec.line, "unknown method '\(method)'; use quantile, equal-interval or natural-breaks")
                }
                upper = Array(Set(b)).sorted()
            }
            let minimum = numbers.values.first ?? upper[0]
            // Values above the last break get a class of their own up to the data's maximum (as
            // ArcGIS Pro's last class ends at the maximum), so no feature goes undrawn.
            if let maximum = numbers.values.last, maximum > upper[upper.count - 1] {
                upper.append(maximum)
            }
            let colors = RendererShorthand.ramp(upper.count)
            var lower = min(minimum, upper[0])
            var infos: [ClassBreakInfo] = []
            for (i, top) in upper.enumerated() {
                // Classes include their upper bound: the first runs from the minimum, the next
                // ones from just above the previous bound.
                let label = i == 0 ? "\(RendererShorthand.label(lower)) – \(RendererShorthand.label(top))" : "> \(RendererShorthand.label(lower)) – \(RendererShorthand.label(top))"
                infos.append(ClassBreakInfo(classMaxValue: top, label: label, symbol: RendererShorthand.symbol(colors[i], geometryType: source.geometryType)))
                lower = top
            }
            // Features with no number (an empty or unreadable cell) are drawn as "Other", as
            // ArcGIS draws values no class holds with the renderer's default symbol.
            var classBreaks = ClassBreaksRenderer(field: f, minValue: min(minimum, upper[0]), infos: infos)
            classBreaks.defaultSymbol = RendererShorthand.symbol(RendererShorthand.other, geometryType: source.geometryType)
            classBreaks.defaultLabel = RendererClasses.otherLabel
            let renderer = Renderer.classBreaks(classBreaks)
            try report(renderer, of: spec, source: source, database: database)
            return renderer
        }
    }

    /// Counts the features each class of `renderer` and its default hold, for `create` to
    /// print; the count of features no class holds and that have no default is a warning.
    func report(_ renderer: Renderer, of spec: Project.LayerSpec, source: Packager.ResolvedSource, database: SQLiteDatabase) throws {
        let classes = RendererClasses(renderer)
        guard let field = renderer.fields.first else { return }
        let q = SQLiteDatabase.quote
        var counts = [Int](repeating: 0, count: classes.classes.count)
        var other = 0
        for row in try database.query("SELECT \(q(field)), count(*) FROM \(q(source.table)) GROUP BY 1") {
            let value: JSONValue
            switch row[0] {
            case .integer(let i): value = .integer(i)
            case .real(let d): value = .number(d)
            case .text(let t): value = .string(t)
            case .null, .blob: value = .null
            }
            let n = Int(row[1].int64 ?? 0)
            if let i = classes.classIndex({ _ in value }) { counts[i] += n } else { other += n }
        }
        var entries = zip(classes.classes, counts).map { (label: $0.label, count: $1) }
        if let defaultClass = classes.defaultClass {
            entries.append((defaultClass.label, other))
        } else if other > 0 {
            warnings.add("\(spec.key).renderer: \(other) feature\(other == 1 ? "" : "s") of \(source.spec.name) fall in no class and are not drawn")
        }
        warnings.addClasses(Packager.RendererReport(layer: spec.key, source: source.spec.name, field: field, classes: entries))
    }
}

extension Packager {
    /// How many features each class of a layer's renderer holds, the default ("Other") last.
    public struct RendererReport: Sendable {
        /// Where the layer is in the project: `maps[0].layers[1]`.
        public var layer: String
        public var source: String
        public var field: String
        public var classes: [(label: String, count: Int)]
    }
}

extension String {
    func localizedStandardLess(_ other: String) -> Bool {
        if let a = Double(self), let b = Double(other) { return a < b }
        return self.lowercased() < other.lowercased()
    }
}
