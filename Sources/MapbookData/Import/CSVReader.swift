import MapbookSupport

/// The features of a CSV file (RFC 4180): points from two coordinate columns, or geometries
/// from a column of WKT, EWKT, hex WKB or hex EWKB.
///
/// The first row names the columns; an empty name becomes `field_N` (N counting columns from
/// 1) and a repeated one, compared without case as SQLite compares column names, gets `_2`,
/// `_3`. The delimiter is the most frequent of `,` `;` tab `|` in that row unless given.
///
/// The geometry comes from, in order of preference: the options' `geometry`, or `x` and `y`;
/// a column named `geometry`, `geom`, `the_geom`, `wkt`, `wkb`, `wkb_geometry`, `shape` (and
/// a few more) most of whose cells are WKT or hex WKB; two columns named like coordinates
/// (`lon`/`lat`, `longitude`/`latitude`, `x`/`y`, `easting`/`northing`, `point_x`/`point_y`,
/// ...); any column every cell of which is WKT or hex WKB. Coordinate columns stay attributes
/// (as GDAL keeps them); a geometry column does not. The layer's geometry type is the family
/// most rows have, multi when any row is multi; rows of another family get no geometry.
///
/// `init` reads the whole file once to infer each column's type over every row, empty cells
/// ignored: integer (fits 64 bits; no `+` and no leading zeros, so `02134` and `+4420...`
/// stay text), real (`1.5`, `-.5`, `1e5`; not `NaN` or `inf`), date (`YYYY-MM-DD`),
/// date-time (ISO 8601 with `T` or a space, stored in UTC when it gives a zone), else text.
/// Booleans are text unless `types` says `boolean` (then `true`/`false`, `yes`/`no`, `t`/`f`,
/// `y`/`n`, `1`/`0` become 1 and 0). An empty cell is null; a quoted empty cell (`""`) in a text
/// column is the empty string, as PostgreSQL's `COPY` reads it.
///
/// `next()` then reads the file again, a chunk at a time. Every warning names its row: the
/// 1-based line of the file the record starts on, the header being line 1 (a record whose
/// quoted cells hold line breaks spans several lines). `Feature.row` is that line. Not
/// Sendable: one task reads a file.
public final class CSVReader: FeatureReader {
    /// Where features get their geometry.
    public enum GeometrySource: Sendable, Equatable {
        /// Points from two numeric columns, which are kept as attributes too.
        case coordinates(x: String, y: String)
        /// A column of WKT, EWKT, hex WKB or hex EWKB, which is not an attribute.
        case column(String)
        /// None (`geometry: none`): a table of records without geometry.
        case none
    }

    public let path: String
    public let schema: LayerSchema
    public internal(set) var report = ImportReport()
    /// The columns as the header names them, after naming empty ones and renaming repeats.
    public let columns: [String]
    /// The delimiter, given or detected.
    public let delimiter: UInt8
    public let geometrySource: GeometrySource
    /// How many records follow the header: the number of features `next()` returns.
    public let recordCount: Int

    let options: CSVOptions
    let tokenizer: CSVTokenizer
    /// Where the first record after the header starts, and its line.
    let dataOffset: Int64
    let dataLine: Int
    /// Each column's field type, nil for the geometry column.
    let columnTypes: [FieldType?]
    let xColumn: Int?
    let yColumn: Int?
    let geometryColumn: Int?
    /// The SRID the layer's CRS came from, when it came from the geometries.
    let layerSRID: Int32?

    /// Opens `path`, reads its header, and reads every record once to infer the schema.
    ///
    /// Throws `DataError` when the file cannot be read, has no header row, an option names a
    /// column it does not have, a quoted cell is never closed, or no geometry can be found.
    public init(path: String, options: CSVOptions = .init()) throws {
        self.path = path
        self.options = options
        tokenizer = try CSVTokenizer.open(path, options: options)
        delimiter = tokenizer.delimiter
        let rawNames = tokenizer.texts(options.encoding)
        let columns = Self.uniqueNames(rawNames)
        self.columns = columns
        dataOffset = tokenizer.offset
        dataLine = tokenizer.nextLine

        func column(_ name: String, _ option: String) throws -> Int {
            if let k = columns.firstIndex(of: name) ?? columns.firstIndex(where: { $0.lowercased() == name.lowercased() }) {
                return k
            }
            throw DataError(
                kind: .noSuchColumn, path: path, location: "line 1",
                message: "`\(option): \(name)` names no column; the columns are \(Self.list(columns))")
        }

        // What the options fix. `geometry: none` (when no column has that name) asks for a
        // table without geometry, as related records are.
        let attributesOnly = options.geometry?.lowercased() == "none" && !columns.contains { $0.lowercased() == "none" }
        var geometryColumn = attributesOnly ? nil : try options.geometry.map { try column($0, "geometry") }
        var xColumn = try options.x.map { try column($0, "x") }
        var yColumn = try options.y.map { try column($0, "y") }
        if geometryColumn != nil, xColumn != nil || yColumn != nil {
            throw DataError(kind: .invalidOption, path: path, message: "set either `x:` and `y:` or `geometry:`, not both")
        }
        if (xColumn == nil) != (yColumn == nil) {
            throw DataError(kind: .invalidOption, path: path, message: "`x:` and `y:` go together; set both, or `geometry:`")
        }
        var overrides = [FieldType?](repeating: nil, count: columns.count)
        for (name, type) in options.types {
            let k = try column(name, "types")
            if k == geometryColumn {
                throw DataError(kind: .invalidOption, path: path, message: "`types: \(name)` names the geometry column, which is not an attribute")
            }
            overrides[k] = type
        }

        // What to look for while scanning.
        let fixed = attributesOnly || geometryColumn != nil || xColumn != nil
        let namedGeometry = fixed ? [] : Self.geometryNames.compactMap { name in columns.firstIndex { $0.lowercased() == name } }
        let namedX = fixed ? nil : Self.xNames.lazy.compactMap { name in columns.firstIndex { $0.lowercased() == name } }.first
        let namedY = fixed ? nil : Self.yNames.lazy.compactMap { name in columns.firstIndex { $0.lowercased() == name } }.first
        var profiles = [ColumnProfile](repeating: ColumnProfile(), count: columns.count)
        for k in columns.indices {
            if overrides[k] != nil { profiles[k].candidates = 0 }
            if k == geometryColumn || namedGeometry.contains(k) {
                profiles[k].sniffing = true
                profiles[k].tolerant = true
            } else if !fixed && (namedX == nil || namedY == nil) {
                profiles[k].sniffing = true
            }
        }
        recordCount = try Self.scan(tokenizer, into: &profiles)

        // Where the geometry comes from.
        let majority = namedGeometry.first { profiles[$0].geometryCells > 0 && profiles[$0].geometryCells * 2 > profiles[$0].nonEmpty }
        if !fixed {
            if let majority {
                geometryColumn = majority
            } else if let namedX, let namedY, namedX != namedY {
                (xColumn, yColumn) = (namedX, namedY)
            } else if let unused = namedGeometry.first(where: { profiles[$0].nonEmpty == 0 }) {
                geometryColumn = unused
            } else if let content = columns.indices.first(where: {
                profiles[$0].sniffing && profiles[$0].nonEmpty > 0 && profiles[$0].geometryCells == profiles[$0].nonEmpty
            }) {
                geometryColumn = content
            } else {
                throw DataError(
                    kind: .noGeometry, path: path,
                    message: "no geometry: no column holds WKT or hex WKB, and no two columns are named like coordinates "
                        + "(lon/lat, longitude/latitude, x/y, easting/northing). The columns are \(Self.list(columns)). "
                        + "Set `x:` and `y:` (the columns of longitude and latitude, or of easting and northing) "
                        + "or `geometry:` (a column of WKT or WKB) for this source in the project file.")
            }
        }
        self.geometryColumn = geometryColumn
        self.xColumn = geometryColumn == nil ? xColumn : nil
        self.yColumn = geometryColumn == nil ? yColumn : nil

        var types: [FieldType?] = []
        var fields: [Field] = []
        for k in columns.indices {
            if k == geometryColumn {
                types.append(nil)
            } else {
                let type = overrides[k] ?? profiles[k].inferredType
                types.append(type)
                fields.append(Field(name: columns[k], type: type))
            }
        }
        columnTypes = types

        let name = String(path.split(separator: "/").last ?? Substring(path))
        let layerName = name.lowercased().hasSuffix(".csv") ? String(name.dropLast(4)) : name
        if let geometryColumn {
            let tally = profiles[geometryColumn].tally
            let family = tally.family
            let srid = options.crs == nil ? tally.srid.flatMap { $0 > 0 ? $0 : nil } : nil
            layerSRID = srid
            geometrySource = .column(columns[geometryColumn])
            schema = LayerSchema(
                name: layerName, fields: fields, geometryType: family.map { $0.type(multi: tally.multi.contains($0)) },
                hasZ: tally.hasZ, hasM: tally.hasM, crs: options.crs ?? srid.map { CoordinateReferenceSystem(epsg: Int($0)) })
        } else if let xColumn, let yColumn {
            layerSRID = nil
            geometrySource = .coordinates(x: columns[xColumn], y: columns[yColumn])
            schema = LayerSchema(name: layerName, fields: fields, geometryType: .point, crs: options.crs)
        } else {
            layerSRID = nil
            geometrySource = .none
            schema = LayerSchema(name: layerName, fields: fields, geometryType: nil, crs: nil)
        }
        tokenizer.seek(to: dataOffset, line: dataLine)
    }

    /// The next feature, or nil at the end of the file.
    public func next() throws -> Feature? {
        guard try tokenizer.nextRecord() else { return nil }
        let row = tokenizer.recordLine
        let cellCount = tokenizer.cellCount
        var noted = false
        if cellCount != columns.count {
            let fate = cellCount < columns.count ? "the missing ones are null" : "the extra ones are dropped"
            report.note(.badValue, row: row, "line \(row) has \(cellCount) cells where the header has \(columns.count); \(fate)")
            noted = true
        }
        var values: [FieldValue] = []
        values.reserveCapacity(schema.fields.count)
        for k in columns.indices {
            guard let type = columnTypes[k] else { continue }
            guard k < cellCount else {
                values.append(.null)
                continue
            }
            let value = tokenizer.withCell(k) { bytes, quoted in convert(bytes, quoted: quoted, to: type) }
            switch value {
            case .success(let v):
                values.append(v)
            case .failure(let problem):
                values.append(.null)
                if !noted {
                    report.note(.badValue, row: row, "line \(row): \(problem.describe(column: columns[k], type: type))")
                    noted = true
                }
            }
        }
        let geometry: Geometry?
        if let geometryColumn {
            geometry = geometryValue(geometryColumn, cellCount: cellCount, row: row)
        } else if xColumn != nil {
            geometry = point(cellCount: cellCount, row: row)
        } else {
            geometry = nil
        }
        return Feature(row: row, geometry: geometry, values: values)
    }

    /// Why a cell could not be read as its column's type.
    struct CellProblem: Error {
        /// The start of the cell's text.
        var text: String

        func describe(column: String, type: FieldType) -> String {
            "'\(text)' in column '\(column)' is not \(type == .integer ? "an" : "a") \(type.rawValue); it is left null"
        }
    }

    /// The value of a cell in a column of `type`.
    private func convert(_ bytes: UnsafeBufferPointer<UInt8>, quoted: Bool, to type: FieldType) -> Result<FieldValue, CellProblem> {
        if type == .text {
            if bytes.isEmpty { return .success(quoted ? .text("") : .null) }
            let (text, valid) = options.encoding.decode(bytes)
            if !valid {
                let row = tokenizer.recordLine
                report.note(.encoding, row: row, "line \(row): '\(text.prefix(60))' is not valid UTF-8; set `encoding:` (latin1 or windows-1252)")
            }
            return .success(.text(text))
        }
        let t = DecimalText.trimmed(bytes)
        if t.isEmpty { return .success(.null) }
        switch type {
        case .integer:
            if let v = DecimalText.int64(t, .lenient) { return .success(.integer(v)) }
        case .real:
            if let v = DecimalText.double(t, .lenient) { return .success(.real(v)) }
        case .date:
            if DateTimeText.isDate(t) { return .success(.text(String(decoding: t, as: UTF8.self))) }
        case .dateTime:
            if let parsed = DateTimeText.parse(t) { return .success(.text(DateTimeText.normalized(parsed))) }
        case .boolean:
            switch String(decoding: t, as: UTF8.self).lowercased() {
            case "true", "t", "yes", "y", "1": return .success(.integer(1))
            case "false", "f", "no", "n", "0": return .success(.integer(0))
            default: break
            }
        case .blob:
            if let blob = Self.hexBytes(t) { return .success(.blob(blob)) }
        case .text:
            break
        }
        return .failure(CellProblem(text: options.encoding.decode(UnsafeBufferPointer(rebasing: t.prefix(60))).text))
    }

    /// The point of the current record's x and y cells, or nil (noted) when either is missing
    /// or not a finite number.
    private func point(cellCount: Int, row: Int) -> Geometry? {
        func coordinate(_ k: Int) -> Double? {
            let problem: String
            if k < cellCount {
                let parsed: Result<Double, CellProblem> = tokenizer.withCell(k) { bytes, _ in
                    let t = DecimalText.trimmed(bytes)
                    if let v = DecimalText.double(t, .lenient) { return .success(v) }
                    return .failure(CellProblem(text: options.encoding.decode(UnsafeBufferPointer(rebasing: t.prefix(60))).text))
                }
                switch parsed {
                case .success(let v): return v
                case .failure(let p): problem = p.text
                }
            } else {
                problem = ""
            }
            let what = problem.isEmpty ? "no value" : "'\(problem)', not a number,"
            report.note(.badCoordinate, row: row, "line \(row) has \(what) in column '\(columns[k])'")
            return nil
        }
        guard let x = coordinate(xColumn!), let y = coordinate(yColumn!) else { return nil }
        return Geometry(.point(Position(x: x, y: y)))
    }

    static func list(_ names: [String]) -> String {
        names.map { "'\($0)'" }.joined(separator: ", ")
    }

    /// Names every column: `field_N` for an empty name, `name_2`, `name_3` for repeats.
    static func uniqueNames(_ raw: [String]) -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        for (k, name) in raw.enumerated() {
            let base = name.isEmpty ? "field_\(k + 1)" : name
            var candidate = base
            var n = 2
            while seen.contains(candidate.lowercased()) {
                candidate = "\(base)_\(n)"
                n += 1
            }
            seen.insert(candidate.lowercased())
            result.append(candidate)
        }
        return result
    }

    /// Column names taken as a geometry column, most telling first (compared lowercased).
    static let geometryNames = [
        "geometry", "geom", "the_geom", "wkt", "wkb_geometry", "wkb", "ewkt", "ewkb", "geometry_wkt", "geom_wkt", "shape",
    ]
    /// Column names taken as x, most telling first.
    static let xNames = ["longitude", "lon", "long", "lng", "x", "easting", "point_x", "xcoord", "x_coord", "coord_x"]
    /// Column names taken as y, most telling first.
    static let yNames = ["latitude", "lat", "y", "northing", "point_y", "ycoord", "y_coord", "coord_y"]
}
