import MapbookData
import MapbookPackage
import MapbookSupport

/// A feature layer's data as the viewer reads it: its table (with the layer's filter), the
/// pop-up formatter, and the transforms between its spatial reference and the map's.
struct FeatureSource {
    let table: FeatureTable
    let formatter: PopupFormatter
    /// Map to layer and back; nil when both are in the same spatial reference.
    let toLayer: CoordinateTransform?
    let toMap: CoordinateTransform?

    /// A box of the map's spatial reference as a box of the layer's: the bounds of 25 points
    /// sampled across it (a projection bends its sides); the box itself when both share one,
    /// nil when no point of it has a place in the layer's.
    func layerBox(_ box: BoundingBox) -> BoundingBox? {
        guard let toLayer else { return box }
        return ViewerMap.sampledBox(box, toLayer)
    }
}

extension ViewerMap {
    /// The layer's feature table, opened once per map on the session's shared database.
    func featureSource(for layer: ViewerLayer) throws -> FeatureSource {
        if let open = sources[layer.id] { return open }
        let package = session.package
        guard let path = layer.definition.dataPath, let entry = package.entry(for: path, mapEntry: self.entry) else {
            throw ViewerError(kind: .unreadableLayer, path: package.path, message: "layer '\(layer.title)' names no data in the package (\(layer.definition.path ?? "no path"))")
        }
        let database = try session.database(for: entry)
        let tableName: String
        if let name = path.table {
            tableName = name
        } else if let itemId = path.itemId, let table = try MobileGeodatabase(database: database).tables.first(where: { $0.itemId == itemId }) {
            tableName = table.name
        } else {
            throw ViewerError(kind: .unreadableLayer, path: database.path, message: "layer '\(layer.title)': no table for \(path)")
        }
        let table = try FeatureTable(database: database, table: tableName, definitionExpression: layer.definition.layerDefinition?.definitionExpression)
        let formatter = PopupFormatter(layer: layer, fields: table.fields, codedValues: try Self.codedValues(layer: layer.definition, table: table))
        var toLayer: CoordinateTransform?, toMap: CoordinateTransform?
        if let layerCRS = table.crs, !Self.sameCRS(layerCRS, crs) {
            toLayer = try CoordinateTransform(from: crs, to: layerCRS)
            toMap = try CoordinateTransform(from: layerCRS, to: crs)
        }
        let source = FeatureSource(table: table, formatter: formatter, toLayer: toLayer, toMap: toMap)
        sources[layer.id] = source
        return source
    }

    static func sameCRS(_ a: CoordinateReferenceSystem, _ b: CoordinateReferenceSystem) -> Bool {
        if a.isWebMercator && b.isWebMercator { return true }
        if let x = a.epsg, let y = b.epsg { return x == y }
        return a == b
    }

    /// Column (lowercased) to code to name: the web map's coded value domains, else the
    /// GeoPackage schema extension's `enum` constraints.
    static func codedValues(layer: OperationalLayer, table: FeatureTable) throws -> [String: [String: String]] {
        var codes: [String: [String: String]] = [:]
        for field in layer.layerDefinition?.original.array("fields") ?? [] {
            guard let f = field.objectValue, let name = f.string("name"), let domain = f.object("domain"),
                domain.string("type") == "codedValue" else { continue }
            var map: [String: String] = [:]
            for coded in domain.array("codedValues") ?? [] {
                guard let c = coded.objectValue, let label = c.string("name"), let code = c["code"] else { continue }
                switch code {
                case .string(let s): map[s] = label
                case .integer(let i): map[String(i)] = label
                case .number(let d): map[PopupFormatter.codeKey(.real(d))] = label
                default: continue
                }
            }
            if !map.isEmpty { codes[name.lowercased()] = map }
        }
        let database = table.database
        if try database.tableExists("gpkg_data_columns"), try database.tableExists("gpkg_data_column_constraints") {
            let rows = try database.query(
                """
                SELECT c.column_name, k.value, k.description FROM gpkg_data_columns c
                JOIN gpkg_data_column_constraints k ON k.constraint_name = c.constraint_name
                WHERE c.table_name = ? AND k.constraint_type = 'enum'
                """, [.text(table.name)])
            for row in rows {
                guard let column = row[0].text?.lowercased(), let code = row[1].text, codes[column]?[code] == nil else { continue }
                codes[column, default: [:]][code] = row[2].text ?? code
            }
        }
        return codes
    }
}
