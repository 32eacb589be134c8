import MapbookSupport

/// The type of an attribute column, as GeoPackage declares it.
public enum FieldType: String, Sendable, CaseIterable {
    case integer, real, text, date, dateTime = "datetime", boolean, blob

    /// The declared SQLite type of the column in a GeoPackage (GeoPackage 1.4, table 1).
    public var gpkgDeclaration: String {
        switch self {
        case .integer: return "INTEGER"
        case .real: return "REAL"
        case .text: return "TEXT"
        case .date: return "DATE"
        case .dateTime: return "DATETIME"
        case .boolean: return "BOOLEAN"
        case .blob: return "BLOB"
        }
    }

    /// The Esri field type a web map's pop-up and renderer expect.
    public var esriFieldType: String {
        switch self {
        case .integer, .boolean: return "esriFieldTypeInteger"
        case .real: return "esriFieldTypeDouble"
        case .text: return "esriFieldTypeString"
        case .date, .dateTime: return "esriFieldTypeDate"
        case .blob: return "esriFieldTypeBlob"
        }
    }

    public var isNumeric: Bool { self == .integer || self == .real }

    /// Reads a GeoPackage column declaration ("INTEGER", "TEXT(20)", "MEDIUMINT", ...).
    public init(gpkgDeclaration: String) {
        let base = gpkgDeclaration.uppercased().split(separator: "(").first.map(String.init) ?? ""
        switch base.trimming(" \t\r\n") {
        case "INTEGER", "INT", "MEDIUMINT", "SMALLINT", "TINYINT", "BIGINT": self = .integer
        case "REAL", "FLOAT", "DOUBLE": self = .real
        case "BOOLEAN": self = .boolean
        case "DATE": self = .date
        case "DATETIME": self = .dateTime
        case "BLOB": self = .blob
        default: self = .text
        }
    }
}

/// An attribute column of a layer.
public struct Field: Sendable, Equatable {
    public var name: String
    public var type: FieldType
    /// The name shown to users (`gpkg_data_columns.title`, the pop-up label).
    public var alias: String?

    public init(name: String, type: FieldType, alias: String? = nil) {
        self.name = name
        self.type = type
        self.alias = alias
    }
}

/// One attribute value. Dates are ISO 8601 text, as GeoPackage stores them.
public enum FieldValue: Sendable, Equatable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public var double: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .real(let d): return d
        default: return nil
        }
    }

    /// The value as a user reads it, for unique-value classes and labels.
    public var displayText: String? {
        switch self {
        case .null: return nil
        case .integer(let i): return String(i)
        case .real(let d): return d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        case .text(let s): return s
        case .blob(let b): return "<\(b.count) bytes>"
        }
    }
}
