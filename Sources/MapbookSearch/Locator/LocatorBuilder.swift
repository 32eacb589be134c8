import MapbookData
import MapbookSupport

/// What a searchable layer's locator is built from (the project file's `search:`).
public struct LocatorSpec: Sendable, Equatable {
    /// The participant's name (and folder name in the package).
    public var name: String
    /// The layer's table in the GeoPackage.
    public var layer: String
    public var field: String
    public var displayField: String?
    public var rankField: String?
    public var outputFields: [String]
    public var isAddress: Bool

    public init(name: String, layer: String, field: String, displayField: String? = nil, rankField: String? = nil, outputFields: [String] = [], isAddress: Bool = false) {
        self.name = name
        self.layer = layer
        self.field = field
        self.displayField = displayField
        self.rankField = rankField
        self.outputFields = outputFields
        self.isAddress = isAddress
    }
}

/// Builds a single-field locator from a layer of a GeoPackage.
public enum LocatorBuilder {
    /// Reads the layer, writes the index to `indexPath` and returns the `locator.json`
    /// description. `dataEntry` is the GeoPackage's path relative to the locator's folder in
    /// the package.
    public static func build(_ spec: LocatorSpec, geoPackage: String, indexPath: String, dataEntry: String = "../../data.gpkg") throws -> (definition: LocatorDefinition, summary: LocatorIndexSummary) {
        let database: SQLiteDatabase
        do { database = try SQLiteDatabase(readOnlyPath: geoPackage) } catch { throw LocatorError(kind: .sqlite(error.kind), path: geoPackage, message: error.message) }
        let layer = try LocatorLayer(database: database, table: spec.layer)
        for (what, field) in [("field", spec.field), ("display field", spec.displayField), ("rank field", spec.rankField)] {
            guard let field else { continue }
            guard layer.hasField(field) else {
                throw LocatorError(kind: .missingField, path: geoPackage, message: "layer '\(spec.layer)' has no \(what) '\(field)'; its fields are \(layer.fieldNames.filter { $0 != "fid" && $0 != layer.geometryColumn }.joined(separator: ", "))")
            }
        }
        for field in spec.outputFields where !layer.hasField(field) {
            throw LocatorError(kind: .missingField, path: geoPackage, message: "layer '\(spec.layer)' has no output field '\(field)'")
        }
        var columns = ["fid", spec.field]
        if let rank = spec.rankField { columns.append(rank) }
        if let geometry = layer.geometryColumn { columns.append(geometry) }
        let entries: [LocatorIndexEntry]
        do {
            entries = try readEntries(database, spec: spec, layer: layer, columns: columns)
        } catch {
            throw LocatorError(kind: .sqlite(error.kind), path: geoPackage, message: error.message)
        }
        let summary = try LocatorIndexBuilder.build(entries, hasRank: spec.rankField != nil, to: indexPath)
        let srs = try? database.scalar("SELECT srs_id FROM gpkg_geometry_columns WHERE lower(table_name) = lower(?)", [.text(spec.layer)])?.int64
        let definition = LocatorDefinition(
            name: spec.name, layer: spec.layer, data: dataEntry, field: spec.field, displayField: spec.displayField,
            rankField: spec.rankField, outputFields: spec.outputFields, wkid: srs.flatMap { $0 }.map { Int($0) },
            isAddress: spec.isAddress, count: summary.entries)
        return (definition, summary)
    }

    private static func readEntries(_ database: SQLiteDatabase, spec: LocatorSpec, layer: LocatorLayer, columns: [String]) throws(SQLiteError) -> [LocatorIndexEntry] {
        var entries: [LocatorIndexEntry] = []
        let statement = try database.prepare("SELECT \(columns.map(SQLiteDatabase.quote).joined(separator: ", ")) FROM \(SQLiteDatabase.quote(spec.layer)) ORDER BY fid")
        while try statement.step() {
            guard let fid = statement.column(0).int64, let text = Self.text(of: statement.column(1)) else { continue }
            var entry = LocatorIndexEntry(fid: fid, text: text)
            if spec.rankField != nil { entry.rank = statement.column(2).double }
            if layer.geometryColumn != nil, case .blob(let bytes) = statement.column(columns.count - 1),
                let g = try? GeoPackageBinary.decode(bytes).geometry, let p = LabelPoint.of(g), let w = layer.wgs84(p)
            {
                entry.longitude = w.x
                entry.latitude = w.y
            }
            entries.append(entry)
        }
        return entries
    }

    /// The normalised text of a field value, as the index stores it: for coverage checks.
    static func text(of value: SQLiteValue) -> String? {
        switch value {
        case .text(let s): return s
        case .integer(let i): return String(i)
        case .real(let d): return d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        default: return nil
        }
    }
}
