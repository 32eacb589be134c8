import MapbookSupport

/// The rows of one feature-table query, read one at a time from SQLite: a query over millions
/// of features holds one row in memory.
///
/// Geometries that cannot be decoded are left out of spatial queries (they cannot be placed)
/// and counted in `unreadableGeometries`; other queries return them with `geometryProblem`.
public final class FeatureCursor {
    private let table: FeatureTable
    /// The query's SQL and bound values, for `EXPLAIN QUERY PLAN`.
    let sqlText: String
    let bindings: [SQLiteValue]
    private var statement: SQLiteStatement?
    private let fields: [Field]
    private let hasGeometry: Bool
    /// Rows must have a geometry meeting this box (spatial queries only).
    private let box: BoundingBox?
    /// Rows must pass this test of their geometry too (a query by polygon).
    private let test: (@Sendable (Geometry) -> Bool)?
    /// Rows to pass over, and how many more to return, counted after the geometry tests
    /// (paging by SQL would count rows the tests then drop).
    private var skip: Int
    private var remaining: Int
    /// How many rows were passed over because their geometry could not be decoded.
    public private(set) var unreadableGeometries = 0

    init(table: FeatureTable, sql: String, bindings: [SQLiteValue], statement: SQLiteStatement, fields: [Field], hasGeometry: Bool, box: BoundingBox?,
        test: (@Sendable (Geometry) -> Bool)? = nil, skip: Int = 0, limit: Int = .max
    ) {
        self.table = table
        self.sqlText = sql
        self.bindings = bindings
        self.statement = statement
        self.fields = fields
        self.hasGeometry = hasGeometry
        self.box = box
        self.test = test
        self.skip = skip
        self.remaining = limit
    }

    deinit { finish() }

    /// The next feature, or nil when there are no more.
    public func next() throws(FeatureTableError) -> TableFeature? {
        guard let statement, remaining > 0 else {
            finish()
            return nil
        }
        do {
            while try statement.step() {
                guard let id = statement.column(0).int64 else { continue }
                var geometry: Geometry?
                var problem: String?
                if hasGeometry, table.geometryFormat == .geoPackage, let point = statement.withBlob(1, GeoPackageBinary.plainPoint), let point {
                    geometry = point
                } else if hasGeometry {
                    switch statement.column(1) {
                    case .null: break
                    case .blob(let bytes):
                        do {
                            if table.geometryFormat == .esriSTGeometry {
                                geometry = try STGeometryBlob.decode(bytes, grids: table.grids)
                            } else {
                                geometry = try GeoPackageBinary.decode(bytes).geometry
                            }
                        } catch {
                            problem = "\(error)"
                        }
                    default: problem = "the geometry column holds a value that is not a blob"
                    }
                }
                if let box {
                    if problem != nil { unreadableGeometries += 1 }
                    guard let geometry, geometry.intersects(box) else { continue }
                }
                if let test {
                    guard let geometry, test(geometry) else { continue }
                }
                if skip > 0 {
                    skip -= 1
                    continue
                }
                remaining -= 1
                let offset = hasGeometry ? 2 : 1
                var values: [FieldValue] = []
                values.reserveCapacity(fields.count)
                for (i, field) in fields.enumerated() {
                    values.append(GeoPackageReader.value(statement.column(offset + i), as: field.type))
                }
                return TableFeature(id: id, geometry: geometry, values: values, geometryProblem: problem)
            }
        } catch {
            finish()
            throw table.failure(error)
        }
        finish()
        return nil
    }

    /// Every remaining feature, for callers that want them all at once.
    public func collect() throws(FeatureTableError) -> [TableFeature] {
        var out: [TableFeature] = []
        while let feature = try next() { out.append(feature) }
        return out
    }

    /// Ends the query early and gives its statement back to the table.
    public func finish() {
        guard let statement else { return }
        self.statement = nil
        table.checkIn(sqlText, statement)
    }
}
