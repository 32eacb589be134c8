import MapbookSupport

extension FeatureTable {
    /// Features whose geometry meets `box` (in the table's CRS), found through the R-tree and
    /// then tested against the geometry itself; a table without an R-tree is scanned.
    ///
    /// `fields` names the fields to read (nil for all of them), in the order wanted.
    public func features(in box: BoundingBox, fields names: [String]? = nil) throws(FeatureTableError) -> FeatureCursor {
        guard let geometryColumn else {
            throw FeatureTableError(kind: .noGeometry, path: database.path, table: name, message: "it has no geometry column, so it cannot be queried by place")
        }
        try requireReadableGeometry()
        let wanted = try resolve(names)
        let (condition, bindings) = boxCondition(box, geometryColumn)
        return try cursor(wanted, geometry: true, conditions: [condition], bindings: bindings, box: box)
    }

    /// The SQL condition that finds the rows that may meet `box`, for the geometry test to
    /// narrow.
    private func boxCondition(_ box: BoundingBox, _ geometryColumn: String) -> (String, [SQLiteValue]) {
        // A box over most of the table reads it in order rather than through the R-tree:
        // SQLite's R-tree walk and the row lookups it leads to cost about 2 µs a row, a plain
        // scan a tenth of that (docs/PERFORMANCE.md, "The viewer"). The geometry test
        // keeps the answer the same either way.
        if let spatialIndex, share(of: box) < Self.scanShare {
            // The R-tree's boxes are rounded outwards to 32-bit floats, so it finds a superset
            // that the geometry test narrows.
            return (
                "\(q(idColumn)) IN (SELECT \(spatialIndexID) FROM \(q(spatialIndex)) WHERE minx <= ? AND maxx >= ? AND miny <= ? AND maxy >= ?)",
                [.real(box.maxX), .real(box.minX), .real(box.maxY), .real(box.minY)]
            )
        }
        return ("\(q(geometryColumn)) IS NOT NULL", [])
    }

    /// The features a feature service's query selects (`FeatureSelection`) that pass the
    /// filter: `fields` read (nil: all), with their geometry when `geometry` is true (always
    /// read, though not returned, when the selection is spatial). Paged by SQL, or after the
    /// geometry tests when the selection is spatial. An unknown field to order by is refused.
    public func features(_ selection: FeatureSelection, fields names: [String]? = nil, geometry: Bool = true) throws(FeatureTableError) -> FeatureCursor {
        let wanted = try resolve(names)
        var conditions: [String] = []
        var bindings: [SQLiteValue] = []
        if let ids = selection.ids {
            // One bound JSON array, however many ids: never text pasted into SQL.
            conditions.append("\(q(idColumn)) IN (SELECT value FROM json_each(?))")
            bindings.append(.text("[" + ids.map(String.init).joined(separator: ",") + "]"))
        }
        if selection.isSpatial {
            guard let geometryColumn else {
                throw FeatureTableError(kind: .noGeometry, path: database.path, table: name, message: "it has no geometry column, so it cannot be queried by place")
            }
            try requireReadableGeometry()
            if let box = selection.box {
                let (condition, values) = boxCondition(box, geometryColumn)
                conditions.append(condition)
                bindings += values
            }
        }
        var order: [String] = []
        for (field, descending) in selection.order {
            let column: String
            if field.lowercased() == idColumn.lowercased() {
                column = idColumn
            } else {
                column = try resolve([field])[0].name
            }
            order.append(q(column) + (descending ? " DESC" : " ASC"))
        }
        let spatial = selection.isSpatial
        return try cursor(
            wanted, geometry: (geometry || spatial) && geometryColumn != nil && geometryProblem == nil, conditions: conditions, bindings: bindings,
            box: selection.box, order: order + [q(idColumn)], page: spatial ? nil : (selection.offset, selection.limit),
            test: selection.test, skip: spatial ? selection.offset : 0, limit: spatial ? (selection.limit ?? .max) : .max)
    }

    /// Above this share of the table's extent, a box query scans the table.
    static let scanShare = 0.25

    /// The share of the table's extent (its R-tree's, else `gpkg_contents`'s) that `box`
    /// covers, 0 to 1; 0 when the extent is unknown.
    func share(of box: BoundingBox) -> Double {
        guard let extent = indexedExtent ?? recordedExtent else { return 0 }
        let width = min(box.maxX, extent.maxX) - max(box.minX, extent.minX)
        let height = min(box.maxY, extent.maxY) - max(box.minY, extent.minY)
        guard width >= 0, height >= 0 else { return 0 }
        let area = extent.width * extent.height
        guard area > 0 else { return 1 }
        return width * height / area
    }

    /// Features within `distance` (in the table's CRS units) of `point`, nearest first, ties
    /// by id; at most `limit` of them. Distances are to the geometry itself: its vertices,
    /// segments and rings, zero inside a polygon.
    public func features(
        within distance: Double, of point: Position, fields names: [String]? = nil, limit: Int = .max
    ) throws(FeatureTableError) -> [(feature: TableFeature, distance: Double)] {
        guard distance >= 0, distance.isFinite, limit > 0 else { return [] }
        let box = BoundingBox(minX: point.x - distance, minY: point.y - distance, maxX: point.x + distance, maxY: point.y + distance)
        let cursor = try features(in: box, fields: names)
        var found: [(feature: TableFeature, distance: Double)] = []
        while let feature = try cursor.next() {
            guard let geometry = feature.geometry else { continue }
            let d = geometry.distance(to: point)
            if d <= distance { found.append((feature, d)) }
        }
        found.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.feature.id < $1.feature.id }
        return Array(found.prefix(limit))
    }

    /// The feature with this id, when it exists and passes the filter.
    public func feature(id: Int64, fields names: [String]? = nil) throws(FeatureTableError) -> TableFeature? {
        let wanted = try resolve(names)
        let cursor = try cursor(wanted, geometry: geometryColumn != nil && geometryProblem == nil, conditions: ["\(q(idColumn)) = ?"], bindings: [.integer(id)], box: nil)
        defer { cursor.finish() }
        return try cursor.next()
    }

    /// Every feature passing the filter, in id order.
    public func allFeatures(fields names: [String]? = nil, geometry: Bool = true) throws(FeatureTableError) -> FeatureCursor {
        let wanted = try resolve(names)
        return try cursor(wanted, geometry: geometry && geometryColumn != nil && geometryProblem == nil, conditions: [], bindings: [], box: nil, ordered: true)
    }

    /// How many rows pass the filter; nil for a view or virtual table, whose rows are not
    /// counted because counting would run what the file defines.
    ///
    /// Without a filter, GDAL's `gpkg_ogr_contents` answers when it holds the table (GDAL keeps
    /// it right with triggers), so a table of millions is not walked.
    public func count() throws(FeatureTableError) -> Int64? {
        do {
            guard try database.isPlainTable(name) else { return nil }
            if filter == nil, geometryFormat != .esriSTGeometry, try database.tableExists("gpkg_ogr_contents"),
                let cached = try database.scalar("SELECT feature_count FROM gpkg_ogr_contents WHERE lower(table_name) = lower(?)", [.text(name)])?.int64
            {
                return cached
            }
            let (clause, bindings) = filter?.sql ?? ("", [])
            let sql = "SELECT count(*) FROM \(q(name))" + (clause.isEmpty ? "" : " WHERE \(clause)")
            let statement = try checkOut(sql)
            defer { checkIn(sql, statement) }
            try statement.bind(bindings)
            return try statement.step() ? statement.column(0).int64 : 0
        } catch {
            throw failure(error)
        }
    }

    /// The table's extent in its CRS: as `gpkg_contents` records it, else from the R-tree.
    public func extent() throws(FeatureTableError) -> BoundingBox? {
        if let recordedExtent { return recordedExtent }
        guard let spatialIndex else { return nil }
        do {
            let row = try database.query("SELECT min(minx), min(miny), max(maxx), max(maxy) FROM \(q(spatialIndex))").first
            guard let row, let a = row[0].double, let b = row[1].double, let c = row[2].double, let d = row[3].double else { return nil }
            return BoundingBox(minX: a, minY: b, maxX: c, maxY: d)
        } catch {
            throw failure(error)
        }
    }

    /// SQLite's plan for a bounding-box query, one line per step (`EXPLAIN QUERY PLAN`), to
    /// show that the R-tree is used.
    public func queryPlan(in box: BoundingBox) throws(FeatureTableError) -> [String] {
        let cursor = try features(in: box, fields: [])
        let sql = cursor.sqlText
        cursor.finish()
        do {
            return try database.query("EXPLAIN QUERY PLAN " + sql, cursor.bindings).compactMap { $0.last?.text }
        } catch {
            throw failure(error)
        }
    }

    // MARK: Helpers

    private func q(_ identifier: String) -> String { SQLiteDatabase.quote(identifier) }

    func requireReadableGeometry() throws(FeatureTableError) {
        if let geometryProblem {
            throw FeatureTableError(kind: .geometryFormatNotPublic, path: database.path, table: name, message: geometryProblem)
        }
    }

    /// The fields of `names`, all of them for nil; an unknown name is refused.
    private func resolve(_ names: [String]?) throws(FeatureTableError) -> [Field] {
        guard let names else { return fields }
        var out: [Field] = []
        for n in names {
            guard let f = field(named: n) else {
                throw FeatureTableError(
                    kind: .noSuchField, path: database.path, table: name,
                    message: "it has no field '\(n)'; its fields are \(fields.map(\.name).joined(separator: ", "))")
            }
            out.append(f)
        }
        return out
    }

    private func cursor(
        _ wanted: [Field], geometry: Bool, conditions: [String], bindings: [SQLiteValue], box: BoundingBox?, ordered: Bool = false,
        order: [String] = [], page: (offset: Int, limit: Int?)? = nil, test: (@Sendable (Geometry) -> Bool)? = nil, skip: Int = 0, limit: Int = .max
    ) throws(FeatureTableError) -> FeatureCursor {
        var conditions = conditions
        var bindings = bindings
        if let filter {
            let (clause, values) = filter.sql
            conditions.append(clause)
            bindings += values
        }
        let columns = [q(idColumn)] + (geometry ? [q(geometryColumn!)] : []) + wanted.map { q($0.name) }
        var sql = "SELECT \(columns.joined(separator: ", ")) FROM \(q(name))"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        if ordered { sql += " ORDER BY \(q(idColumn))" }
        if !order.isEmpty { sql += " ORDER BY " + order.joined(separator: ", ") }
        if let page, page.offset > 0 || page.limit != nil {
            sql += " LIMIT ? OFFSET ?"
            bindings += [.integer(Int64(page.limit ?? -1)), .integer(Int64(page.offset))]
        }
        do {
            let statement = try checkOut(sql)
            try statement.bind(bindings)
            return FeatureCursor(
                table: self, sql: sql, bindings: bindings, statement: statement, fields: wanted, hasGeometry: geometry, box: box, test: test, skip: skip,
                limit: limit)
        } catch {
            throw failure(error)
        }
    }
}
