/// What an importer dropped or changed, counted per kind, with the first rows of each.
///
/// Importers never stop on a bad record: they skip or coerce it and say so here. `--strict`
/// turns any entry into an error.
public struct ImportReport: Sendable, Equatable {
    /// The kinds of trouble importers report.
    public enum Issue: String, Sendable, CaseIterable, Comparable {
        case nullGeometry = "null geometry"
        case emptyGeometry = "empty geometry"
        case invalidGeometry = "invalid geometry"
        case unclosedRing = "unclosed ring"
        case unsupportedGeometry = "unsupported geometry type"
        case badCoordinate = "bad coordinate"
        case badFeature = "not a feature"
        case badMember = "malformed member, ignored"
        case windingOrder = "ring winding reversed to the right-hand rule"
        case badValue = "bad value"
        case coercedValue = "coerced value"
        case outsideExtent = "outside the extent"
        case clipped = "clipped at the extent"
        case clampedLatitude = "latitude clamped to Web Mercator's range"
        case encoding = "undecodable text"

        public static func < (a: Issue, b: Issue) -> Bool {
            allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
        }

        /// Whether the feature was dropped (as opposed to kept with a change).
        public var drops: Bool {
            switch self {
            case .nullGeometry, .emptyGeometry, .invalidGeometry, .unsupportedGeometry, .badCoordinate, .badFeature, .outsideExtent: return true
            default: return false
            }
        }
    }

    public struct Entry: Sendable, Equatable {
        public var count: Int
        /// The first few rows, for a user to look at.
        public var rows: [Int]
        /// What the first occurrence was, in words.
        public var example: String
    }

    public static let rowsKept = 5

    public private(set) var entries: [Issue: Entry] = [:]

    public init() {}

    public mutating func note(_ issue: Issue, row: Int, _ example: @autoclosure () -> String) {
        if var entry = entries[issue] {
            entry.count += 1
            if entry.rows.count < Self.rowsKept { entry.rows.append(row) }
            entries[issue] = entry
        } else {
            entries[issue] = Entry(count: 1, rows: [row], example: example())
        }
    }

    public mutating func merge(_ other: ImportReport) {
        for (issue, entry) in other.entries {
            if var mine = entries[issue] {
                mine.count += entry.count
                mine.rows = Array((mine.rows + entry.rows).prefix(Self.rowsKept))
                entries[issue] = mine
            } else {
                entries[issue] = entry
            }
        }
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// How many features were dropped.
    public var dropped: Int { entries.filter { $0.key.drops }.reduce(0) { $0 + $1.value.count } }

    public func count(_ issue: Issue) -> Int { entries[issue]?.count ?? 0 }

    /// One line per issue: "3 null geometry (rows 4, 9, 12): feature has no geometry".
    public var lines: [String] {
        entries.keys.sorted().map { issue in
            let e = entries[issue]!
            let rows = e.rows.map(String.init).joined(separator: ", ") + (e.count > e.rows.count ? ", ..." : "")
            let verb = issue.drops ? "dropped" : "kept"
            return "\(e.count) \(issue.rawValue), \(verb) (row\(e.count == 1 ? "" : "s") \(rows)): \(e.example)"
        }
    }
}
