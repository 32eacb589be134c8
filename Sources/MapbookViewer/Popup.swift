import MapbookData
import MapbookPackage
import MapbookSearch
import MapbookSupport

/// A feature's pop-up, as identify shows it: a title and the fields the layer's `popupInfo`
/// lists, with their labels and values formatted as it asks.
public struct Popup: Sendable, Equatable {
    /// One line of the pop-up.
    public struct Field: Sendable, Equatable {
        /// The column the value comes from.
        public var name: String
        public var label: String
        /// The value as the pop-up shows it: formatted, coded values by name, "" for null.
        public var value: String
        /// The value as stored, for `--json`.
        public var raw: FieldValue
    }

    public var layerID: String
    public var layerTitle: String
    public var featureID: Int64
    public var title: String
    /// The pop-up's own text (`popupInfo.description`) with its `{FIELD}`s filled in and its
    /// HTML tags removed; nil when the pop-up lists fields instead.
    public var text: String?
    public var fields: [Field]
    /// Records of related tables (a tree's inspections), per relationship, oldest first.
    public var related: [RelatedRecords] = []
    /// Files attached to the feature.
    public var attachments: [Attachment] = []

    /// The records of one related table that name this feature.
    public struct RelatedRecords: Sendable, Equatable {
        public var table: String
        public var records: [(id: Int64, fields: [Field])]

        public static func == (a: RelatedRecords, b: RelatedRecords) -> Bool {
            a.table == b.table && a.records.map(\.id) == b.records.map(\.id) && a.records.map(\.fields) == b.records.map(\.fields)
        }
    }

    /// One attached file: its id in the media table, name, type and size.
    public struct Attachment: Sendable, Equatable {
        public var id: Int64
        public var name: String
        public var contentType: String
        public var size: Int64
    }

    public init(layerID: String, layerTitle: String, featureID: Int64, title: String, text: String? = nil, fields: [Field]) {
        self.layerID = layerID
        self.layerTitle = layerTitle
        self.featureID = featureID
        self.title = title
        self.text = text
        self.fields = fields
    }
}

extension Popup {
    /// What a locator knows of a feature the map does not show: its label as the title, its
    /// attributes (those not null, by name) as fields.
    public init(locatorHit hit: GeocodeCandidate) {
        let fields = hit.attributes.keys.sorted().compactMap { key -> Field? in
            guard let value = hit.attributes[key], value != .null else { return nil }
            let text = value.stringValue ?? JSONWriter.string(value).trimmingTrailingNewline()
            return Field(name: key, label: key, value: text, raw: .text(text))
        }
        self.init(layerID: hit.layer, layerTitle: hit.participant, featureID: hit.fid, title: hit.label, fields: fields)
    }
}

/// Formats the pop-ups of one layer's features (ArcGIS web map `popupInfo`,
/// https://developers.arcgis.com/web-map-specification/objects/popupInfo/).
///
/// - The title is `popupInfo.title` with each `{FIELD}` replaced by the field's formatted
///   value (names match ignoring case; an unknown field gives nothing); the layer's title when
///   the pop-up has none.
/// - The fields are the `fieldInfos` marked visible, in their order, labelled by `label`; a
///   layer without `popupInfo` shows every attribute column, labelled by its alias.
/// - Numbers follow `format.places` (fixed decimals) and `format.digitSeparator` (thousands
///   separated by ","); without a format, as stored.
/// - Dates (columns of type DATE or DATETIME, or Unix milliseconds in a field the pop-up gives a
///   `dateFormat`) follow `format.dateFormat` (`shortDate`, `shortDateLE`, `longMonthDayYear`,
///   `dayShortMonthYear`, `longDate`, `longMonthYear`, `shortMonthYear`, `year` and the
///   `...ShortTime`, `...ShortTime24`, `...LongTime`, `...LongTime24` variants), in UTC since a
///   package carries no time zone for its dates; without a format, ISO 8601.
/// - Coded values show by name: from the layer definition's `fields[].domain.codedValues`, else
///   from the GeoPackage schema extension's `enum` constraints on the column.
public struct PopupFormatter: Sendable {
    public let layerID: String
    public let layerTitle: String
    let titleTemplate: String?
    let descriptionTemplate: String?
    /// (column, label, format) in the order shown.
    let shown: [(name: String, label: String, format: JSONObject?)]
    /// Column name (lowercased) to its type and coded values.
    let columns: [String: (name: String, type: FieldType, codes: [String: String])]
    /// Column name (lowercased) to the format its fieldInfo gives, for `{FIELD}`s in the title.
    let formats: [String: JSONObject]

    public init(layer: ViewerLayer, fields: [MapbookData.Field], codedValues: [String: [String: String]]) {
        layerID = layer.id
        layerTitle = layer.title
        let popup = layer.definition.popupInfo
        titleTemplate = popup?.title
        descriptionTemplate = popup?.description.flatMap { $0.trimmingWhitespace().isEmpty ? nil : $0 }
        var columns: [String: (name: String, type: FieldType, codes: [String: String])] = [:]
        for field in fields {
            columns[field.name.lowercased()] = (field.name, field.type, codedValues[field.name.lowercased()] ?? [:])
        }
        self.columns = columns
        var formats: [String: JSONObject] = [:]
        for info in popup?.fieldInfos ?? [] {
            if let name = info.fieldName, let format = info.format { formats[name.lowercased()] = format }
        }
        self.formats = formats
        if let infos = popup?.fieldInfos {
            shown = infos.compactMap { info in
                guard info.visible ?? true, let name = info.fieldName, let column = columns[name.lowercased()] else { return nil }
                return (column.name, info.label ?? name, info.format)
            }
        } else if descriptionTemplate != nil {
            // A pop-up of its own text lists no fields.
            shown = []
        } else {
            shown = fields.map { ($0.name, $0.alias ?? $0.name, nil) }
        }
    }

    /// The columns a pop-up needs: those shown and those its title and text name.
    public var neededColumns: [String] {
        var names = shown.map(\.name)
        for template in [titleTemplate, descriptionTemplate].compactMap({ $0 }) {
            for name in template.placeholderNames {
                if let column = columns[name.trimmingWhitespace().lowercased()], !names.contains(column.name) { names.append(column.name) }
            }
        }
        return names
    }

    /// The pop-up of a feature whose `values` are those of `neededColumns`, in that order.
    public func popup(featureID: Int64, values: [FieldValue]) -> Popup {
        var byName: [String: FieldValue] = [:]
        for (name, value) in zip(neededColumns, values) { byName[name.lowercased()] = value }
        func text(_ name: String, format: JSONObject?) -> String {
            let key = name.lowercased()
            guard let column = columns[key] else { return "" }
            return Self.format(byName[key] ?? .null, type: column.type, codes: column.codes, format: format ?? formats[key])
        }
        let title = titleTemplate.map { $0.fillingPlaceholders { text($0.trimmingWhitespace(), format: nil) } } ?? layerTitle
        let description = descriptionTemplate.map { HTMLText.plain($0.fillingPlaceholders { text($0.trimmingWhitespace(), format: nil) }) }
        let fields = shown.map { field in
            Popup.Field(name: field.name, label: field.label, value: text(field.name, format: field.format), raw: byName[field.name.lowercased()] ?? .null)
        }
        return Popup(layerID: layerID, layerTitle: layerTitle, featureID: featureID, title: title, text: description, fields: fields)
    }

    /// The column named `name` (any case) as the table spells it; nil when there is none.
    public func column(_ name: String) -> String? {
        columns[name.lowercased()]?.name
    }

    /// A value of the column `name` as a label says it: its coded value's name when
    /// `codedName` and the column has one, else as a pop-up without a format shows it.
    public func labelText(_ name: String, _ value: FieldValue, codedName: Bool) -> String {
        guard let column = columns[name.lowercased()] else { return "" }
        return Self.format(value, type: column.type, codes: codedName ? column.codes : [:], format: nil)
    }

    /// `labelClass`'s text for one feature, `value` giving each column's value: the fields
    /// it names by their columns, coded values by their names where it asks.
    public func labelText(_ labelClass: LabelClass, value: (_ column: String) -> FieldValue) -> String {
        labelClass.text { name, domainName in
            let column = self.column(name) ?? name
            return labelText(column, value(column), codedName: domainName || labelClass.useCodedValues)
        }
    }

    /// One value as a pop-up shows it.
    public static func format(_ value: FieldValue, type: FieldType, codes: [String: String], format: JSONObject?) -> String {
        if case .null = value { return "" }
        if !codes.isEmpty, let name = codes[codeKey(value)] { return name }
        let dateFormat = format?.string("dateFormat")
        switch value {
        case .null: return ""
        case .blob(let bytes): return "(\(bytes.count) bytes)"
        case .text(let s):
            if type == .date || type == .dateTime || dateFormat != nil, let seconds = ISODate.parse(s) {
                return formatDate(seconds: seconds, dateFormat, hasTime: type != .date && s.count > 10)
            }
            return s
        case .integer(let i):
            if type == .date || type == .dateTime || dateFormat != nil {
                // Esri stores dates as Unix milliseconds.
                return formatDate(seconds: i >= 0 ? i / 1000 : (i - 999) / 1000, dateFormat, hasTime: true)
            }
            if type == .boolean { return i != 0 ? "true" : "false" }
            return formatNumber(Double(i), places: format?.int("places") ?? 0, separator: format?.bool("digitSeparator") ?? false, integer: format?.int("places") == nil)
        case .real(let d):
            if let places = format?.int("places") {
                return formatNumber(d, places: places, separator: format?.bool("digitSeparator") ?? false, integer: false)
            }
            if format?.bool("digitSeparator") == true, d == d.rounded(), d.magnitude < 1e15 {
                return formatNumber(d, places: 0, separator: true, integer: false)
            }
            return JSONWriter.formatNumber(d)
        }
    }

    /// A stored value as coded value domains key it: integers and integral reals alike.
    static func codeKey(_ value: FieldValue) -> String {
        switch value {
        case .integer(let i): return String(i)
        case .real(let d): return d == d.rounded() && d.magnitude < 1e15 ? String(Int64(d)) : JSONWriter.formatNumber(d)
        case .text(let s): return s
        case .null, .blob: return ""
        }
    }

    /// `x` with `places` decimals (at most 20), thousands separated by "," when asked.
    static func formatNumber(_ x: Double, places: Int, separator: Bool, integer: Bool) -> String {
        guard x.isFinite else { return JSONWriter.formatNumber(x) }
        let places = min(max(places, 0), 20)
        var text: String
        if integer, x.magnitude < 9e15 {
            text = String(Int64(x))
        } else {
            text = fixed(x, places: places)
        }
        guard separator else { return text }
        let negative = text.hasPrefix("-")
        if negative { text.removeFirst() }
        let parts = text.split(separator: ".", maxSplits: 1)
        var whole = String(parts[0])
        var grouped = ""
        while whole.count > 3 {
            grouped = "," + whole.suffix(3) + grouped
            whole.removeLast(3)
        }
        grouped = whole + grouped
        return (negative ? "-" : "") + grouped + (parts.count > 1 ? "." + parts[1] : "")
    }

    /// `x` rounded half away from zero to `places` decimals, written without an exponent.
    static func fixed(_ x: Double, places: Int) -> String {
        var scaled = x.magnitude
        for _ in 0..<places { scaled *= 10 }
        scaled = scaled.rounded(.toNearestOrAwayFromZero)
        guard scaled < 9e18 else { return JSONWriter.formatNumber(x) }
        var digits = String(UInt64(scaled))
        if places > 0 {
            if digits.count <= places { digits = String(repeating: "0", count: places - digits.count + 1) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -places))
        }
        return (x < 0 && scaled != 0 ? "-" : "") + digits
    }

    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
    static let dayNames = ["Thursday", "Friday", "Saturday", "Sunday", "Monday", "Tuesday", "Wednesday"]

    /// A date in one of the web map's `dateFormat`s, in UTC.
    static func formatDate(seconds: Int64, _ dateFormat: String?, hasTime: Bool) -> String {
        guard let dateFormat else {
            let iso = ISODate.format(seconds: seconds)
            return hasTime ? iso : String(iso.prefix(10))
        }
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (y, m, d) = ISODate.civil(fromDays: days)
        let month = monthNames[Int(m) - 1]
        let weekday = dayNames[Int(((days % 7) + 7) % 7)]
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let hour = secondOfDay / 3600, minute = secondOfDay / 60 % 60, second = secondOfDay % 60
        let date: String
        var rest = Substring(dateFormat)
        var time = ""
        for (suffix, kind) in [("ShortTime24", 1), ("LongTime24", 2), ("ShortTime", 3), ("LongTime", 4)] where rest.hasSuffix(suffix) {
            rest = rest.dropLast(suffix.count)
            let h12 = hour % 12 == 0 ? 12 : hour % 12, ampm = hour < 12 ? "AM" : "PM"
            switch kind {
            case 1: time = " \(two(hour)):\(two(minute))"
            case 2: time = " \(two(hour)):\(two(minute)):\(two(second))"
            case 3: time = " \(h12):\(two(minute)) \(ampm)"
            default: time = " \(h12):\(two(minute)):\(two(second)) \(ampm)"
            }
            break
        }
        switch rest {
        case "shortDate": date = "\(m)/\(d)/\(y)"
        case "shortDateLE": date = "\(d)/\(m)/\(y)"
        case "longMonthDayYear": date = "\(month) \(d), \(y)"
        case "dayShortMonthYear": date = "\(d) \(month.prefix(3)) \(y)"
        case "longDate": date = "\(weekday), \(month) \(d), \(y)"
        case "longMonthYear": date = "\(month) \(y)"
        case "shortMonthYear": date = "\(month.prefix(3)) \(y)"
        case "year": date = "\(y)"
        default:
            // A format the specification does not list: ISO 8601, unambiguous.
            return ISODate.format(seconds: seconds)
        }
        return date + time
    }
}
