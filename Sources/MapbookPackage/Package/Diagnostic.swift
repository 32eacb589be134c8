import MapbookSupport

/// One finding of `validate`: how bad it is, a stable code, the entry it concerns and what to do.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Comparable, CaseIterable {
        /// The package is broken: readers will fail or show the wrong thing.
        case error
        /// Something a user would want fixed; fails validation only with `--strict`.
        case warning
        /// Merely absent or informative (an Esri package has no hashes); never fails validation.
        case note

        var rank: Int {
            switch self {
            case .error: return 0
            case .warning: return 1
            case .note: return 2
            }
        }

        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    public var severity: Severity
    /// A stable identifier for scripts: `zip.crc`, `manifest.hash`, `map.path`, ...
    public var code: String
    /// The entry concerned, when there is one.
    public var entry: String?
    public var message: String

    public init(_ severity: Severity, _ code: String, entry: String? = nil, _ message: String) {
        self.severity = severity
        self.code = code
        self.entry = entry
        self.message = message
    }

    public var description: String {
        "\(severity.rawValue): [\(code)] " + (entry.map { "\($0): " } ?? "") + message
    }

    public var jsonValue: JSONValue {
        var o = JSONObject()
        o["severity"] = .string(severity.rawValue)
        o["code"] = .string(code)
        o.set("entry", entry)
        o["message"] = .string(message)
        return .object(o)
    }
}
