import MapbookData
import MapbookPackage
import MapbookSupport

extension Packager {
    /// A source checked against its file: the table exists, and what the maps need to know.
    struct ResolvedSource: Sendable {
        var spec: Project.SourceSpec
        /// The input file, as given (resolved against the project folder).
        var file: String
        /// The file's entry name inside the package folder.
        var entry: String
        var dataPath: LayerDataPath
        var table: String
        var columns: [(name: String, type: String)]
        var geometryType: String?
        /// The table's extent in WGS84, when its CRS allows computing it here.
        var extent: BoundingBox?
        /// A table without geometry: it goes in the web map's `tables`, not its layers.
        var isTable: Bool
        /// Opens the source's database, read-only.
        var open: @Sendable () throws -> SQLiteDatabase
    }

    struct ResolvedBackdrop: Sendable {
        var file: String
        var entry: String
        var title: String
        var extent: BoundingBox?
    }

    struct ResolvedBasemap: Sendable {
        var file: String
        var entry: String
        var title: String
        var kind: TilePackage.Kind
    }

    /// State while planning a package: the files it will hold and their entry names.
    struct Context {
        let project: Project
        /// The sources imported into data.gpkg (all but mobile geodatabases).
        var imported: Packager.ImportResult?
        /// Things the build did that the user should hear about (printed by `create`).
        let warnings = Packager.Warnings()
        var files: [PackageContents.File] = []
        /// Input file -> entry name, so a file used by several sources is packaged once.
        var entries: [String: String] = [:]
        /// The editable sources' schemas, as installed in data.gpkg.
        var editable: [String: EditSchema] = [:]

        init(project: Project) {
            self.project = project
        }

        func resolve(_ path: String) -> String {
            path.hasPrefix("/") ? path : project.directory + "/" + path
        }

        func error(_ kind: ProjectError.Kind, _ key: String, _ line: Int?, _ message: String) -> ProjectError {
            ProjectError(kind: kind, file: project.file, key: key, line: line, message: message)
        }

        /// Refuses a `field` the project names that `table` does not have, with the column it
        /// most likely meant (differing in case, or a typo away) and the table's columns.
        func checkColumn(_ field: String, _ what: String, of table: String, columns: [String], key: String, line: Int?) throws(ProjectError) {
            guard !columns.contains(field) else { return }
            var message = "the \(what) '\(field)' is not a column of \(table)"
            if let near = columns.first(where: { $0.lowercased() == field.lowercased() }) ?? nearest(field, in: columns) {
                message += "; did you mean '\(near)'? Its columns are: "
            } else {
                message += "; its columns are: "
            }
            throw error(.noSuchColumn, key, line, message + columns.joined(separator: ", "))
        }

        /// The entry name for an input file: its base name, made unique.
        mutating func entryName(for file: String, named preferred: String? = nil) -> String {
            if let existing = entries[file] { return existing }
            let base = preferred ?? file.split(separator: "/").last.map(String.init) ?? file
            var name = base
            var n = 2
            let taken = Set(entries.values)
            while taken.contains(name) {
                let stem = base.split(separator: ".").dropLast().joined(separator: ".")
                let ext = base.split(separator: ".").last.map(String.init) ?? ""
                name = "\(stem)-\(n).\(ext)"
                n += 1
            }
            entries[file] = name
            files.append(PackageContents.File(path: name, source: .file(path: file)))
            return name
        }

        /// Refuses a database with changes still in a write-ahead log or a hot journal: it is
        /// read (or copied) as the file alone, so they would be lost.
        func checkNoPendingChanges(_ spec: Project.SourceSpec, file: String) throws {
            for (suffix, what) in [("-wal", "write-ahead log"), ("-journal", "rollback journal")] {
                if let side = try? RandomAccessFile(path: file + suffix), side.size > 0 {
                    throw self.error(.pendingChanges, spec.key, spec.line, "'\(spec.path)' has changes in its \(what) '\(spec.path)\(suffix)' that are not in the file itself (is it open in QGIS, ArcGIS or another program?). Close that program, or run: sqlite3 '\(spec.path)' 'PRAGMA wal_checkpoint(TRUNCATE)', then try again")
                }
            }
        }

        mutating func resolveSources() throws -> [String: ResolvedSource] {
            var out: [String: ResolvedSource] = [:]
            for spec in project.sources {
                out[spec.name] = try resolveSource(spec)
            }
            return out
        }

        mutating func resolveSource(_ spec: Project.SourceSpec) throws -> ResolvedSource {
            if let imported, let layer = imported.layers[spec.name], let dataFile = imported.dataFile {
                var inStore = spec
                inStore.table = layer.table
                let database = try SQLiteDatabase(readOnlyPath: dataFile)
                return try resolveGeoPackage(inStore, file: dataFile, database: database, open: { try SQLiteDatabase(readOnlyPath: dataFile) }, entry: "data.gpkg")
            }
            let file = resolve(spec.path)
            let handle: RandomAccessFile
            do {
                handle = try RandomAccessFile(path: file)
            } catch {
                throw self.error(.file(error.kind), spec.key, spec.line, "cannot open '\(spec.path)': \(error.message)")
            }
            let head = handle.size >= 16 ? try handle.read(at: 0, count: 16) : []
            guard head.starts(with: Array("SQLite format 3".utf8)) else {
                let ext = spec.path.split(separator: ".").last.map { $0.lowercased() } ?? ""
                let kind = ["geojson": "a GeoJSON file", "json": "a JSON file", "csv": "a CSV file", "shp": "a Shapefile", "zip": "a ZIP file"][ext] ?? "not a GeoPackage or mobile geodatabase"
                throw self.error(.unsupported, spec.key, spec.line, "'\(spec.path)' is \(kind); this version of mapbook packages prepared data only: a table of a GeoPackage (.gpkg) or Esri mobile geodatabase (.geodatabase). Convert it first, e.g. ogr2ogr -f GPKG out.gpkg '\(spec.path)'")
            }
            try checkNoPendingChanges(spec, file: file)
            let database: SQLiteDatabase
            do {
                database = try SQLiteDatabase(readOnlyPath: file)
            } catch {
                throw self.error(.sqlite(error.kind), spec.key, spec.line, "cannot open '\(spec.path)': \(error.message)")
            }
            let open: @Sendable () throws -> SQLiteDatabase = { try SQLiteDatabase(readOnlyPath: file) }
            if try database.tableExists("GDB_Items") {
                return try resolveGeodatabase(spec, file: file, database: database, open: open)
            }
            guard try database.tableExists("gpkg_contents") else {
                throw self.error(.packageFormat(.wrongFormat), spec.key, spec.line, "'\(spec.path)' is a SQLite database but neither a GeoPackage (no gpkg_contents) nor an Esri mobile geodatabase (no GDB_Items)")
            }
            return try resolveGeoPackage(spec, file: file, database: database, open: open)
        }

        mutating func resolveGeoPackage(_ spec: Project.SourceSpec, file: String, database: SQLiteDatabase, open: @escaping @Sendable () throws -> SQLiteDatabase, entry preferredEntry: String? = nil) throws -> ResolvedSource {
            let contents: GeoPackageContents
            do {
                contents = try GeoPackageContents(database: database)
            } catch {
                throw self.error(.packageFormat(error.kind), spec.key, spec.line, error.message)
            }
            let usable = contents.tables.filter { $0.dataType == "features" || $0.dataType == "attributes" }
            let table: GeoPackageContents.Table
            if let name = spec.table {
                guard let t = contents.table(named: name), usable.contains(where: { $0.name == t.name }) else {
                    throw self.error(.noSuchTable, spec.key + ".table", spec.line, "'\(spec.path)' has no feature or attribute table '\(name)'; it has: \(usable.map(\.name).joined(separator: ", "))")
                }
                table = t
            } else {
                guard usable.count == 1 else {
                    throw self.error(.ambiguousTable, spec.key, spec.line, "'\(spec.path)' holds \(usable.count) tables (\(usable.map(\.name).joined(separator: ", "))); say which with 'table:'")
                }
                table = usable[0]
            }
            var extent: BoundingBox?
            if let bounds = table.bounds, bounds.maxX >= bounds.minX, bounds.maxY >= bounds.minY, let srs = table.srsID {
                let epsg = try database.scalar(
                    "SELECT CASE WHEN upper(organization) = 'EPSG' THEN organization_coordsys_id END FROM gpkg_spatial_ref_sys WHERE srs_id = ?",
                    [.integer(Int64(srs))])?.int64
                switch epsg ?? Int64(srs) {
                case 4326: extent = bounds
                case 3857, 900913, 102100: extent = WebMercator.unproject(bounds)
                default: extent = nil
                }
            }
            let columns = try database.query("SELECT name, type FROM pragma_table_info(?)", [.text(table.name)]).map { ($0[0].text ?? "", $0[1].text ?? "") }
            let entry = entryName(for: file, named: preferredEntry)
            return ResolvedSource(
                spec: spec, file: file, entry: entry, dataPath: LayerDataPath(file: entry, table: table.name),
                table: table.name, columns: columns, geometryType: table.geometryType, extent: extent,
                isTable: table.dataType == "attributes", open: open)
        }

        mutating func resolveGeodatabase(_ spec: Project.SourceSpec, file: String, database: SQLiteDatabase, open: @escaping @Sendable () throws -> SQLiteDatabase) throws -> ResolvedSource {
            let gdb: MobileGeodatabase
            do {
                gdb = try MobileGeodatabase(database: database)
            } catch {
                throw self.error(.packageFormat(error.kind), spec.key, spec.line, error.message)
            }
            let table: MobileGeodatabase.Table
            if let name = spec.table {
                guard let t = gdb.tables.first(where: { $0.name == name || $0.name.lowercased() == name.lowercased() || $0.layerName == name }) else {
                    throw self.error(.noSuchTable, spec.key + ".table", spec.line, "'\(spec.path)' has no table '\(name)'; it has: \(gdb.tables.map(\.name).joined(separator: ", "))")
                }
                table = t
            } else {
                let features = gdb.tables.filter { $0.kind == "Feature Class" }
                guard features.count == 1 else {
                    throw self.error(.ambiguousTable, spec.key, spec.line, "'\(spec.path)' holds \(features.count) feature classes (\(features.map(\.name).joined(separator: ", "))); say which with 'table:'")
                }
                table = features[0]
            }
            guard let itemId = table.itemId else {
                throw self.error(.packageFormat(.missingKey), spec.key, spec.line, "table '\(table.name)' of '\(spec.path)' has no service item (GDB_ServiceItems), which ArcGIS readers need to find it in a package")
            }
            let columns = try database.query("SELECT name, type FROM pragma_table_info(?)", [.text(table.name)]).map { ($0[0].text ?? "", $0[1].text ?? "") }
            let entry = entryName(for: file)
            var path = LayerDataPath(file: entry, table: table.name)
            path.parameters = [(name: "itemId", value: String(itemId))]
            return ResolvedSource(
                spec: spec, file: file, entry: entry, dataPath: path, table: table.name, columns: columns,
                geometryType: table.geometryType, extent: nil, isTable: table.kind == "Table", open: open)
        }

        mutating func resolveBackdrop() throws -> ResolvedBackdrop? {
            guard let spec = project.backdrop, let path = spec.path else { return nil }
            let (file, tiles) = try openTilePackage(path, key: spec.key + ".path", line: spec.line, kinds: [.vectorTilePackage])
            var extent: BoundingBox?
            if let full = tiles.fullExtent, let b = full.bounds, full.spatialReference?.isWebMercator ?? true {
                extent = WebMercator.unproject(b)
            }
            return ResolvedBackdrop(file: file, entry: entryName(for: file), title: spec.title ?? Self.title(of: tiles, file: file), extent: extent)
        }

        /// The base maps offered beside the backdrop, stored as they are.
        mutating func resolveBasemaps() throws -> [ResolvedBasemap] {
            try project.basemaps.map { spec in
                let (file, tiles) = try openTilePackage(spec.path, key: spec.key, line: spec.line, kinds: [.compactTilePackage, .vectorTilePackage])
                if tiles.kind == .compactTilePackage, let problem = Self.webMercatorProblem(tiles) {
                    throw self.error(.unsupported, spec.key, spec.line, "'\(spec.path)' \(problem); viewers draw raster base maps on the Web Mercator tiling scheme (levels 0-23 of 256-pixel tiles)")
                }
                return ResolvedBasemap(file: file, entry: entryName(for: file), title: spec.title ?? Self.title(of: tiles, file: file), kind: tiles.kind)
            }
        }

        /// A tile package the project names, checked as readers need it: readable, of one of
        /// `kinds`, every entry stored (tiles are read in place) and with the extension readers
        /// look for.
        func openTilePackage(_ path: String, key: String, line: Int?, kinds: [TilePackage.Kind]) throws -> (file: String, tiles: TilePackage) {
            let file = resolve(path)
            let wanted = kinds.map { $0 == .vectorTilePackage ? "a vector tile package (.vtpk)" : "a compact tile package (.tpkx)" }.joined(separator: " or ")
            let readable = kinds == [.vectorTilePackage] ? "vector tile package" : "tile package"
            let tiles: TilePackage
            do {
                tiles = try TilePackage(archive: try ZipArchive(path: file))
            } catch let error as ArchiveError {
                throw self.error(.file(error.kind), key, line, "'\(path)' is not a readable \(readable): \(error.message)")
            } catch {
                throw self.error(.packageFormat(PackageFormatError(error, path: file).kind), key, line, "'\(path)' is not a readable \(readable): \(error)")
            }
            guard kinds.contains(tiles.kind) else {
                throw self.error(.packageFormat(.wrongFormat), key, line, "'\(path)' is a \(tiles.kind.rawValue), not \(wanted)")
            }
            for entry in tiles.archive.entries where entry.method != .stored {
                throw self.error(.packageFormat(.notStored), key, line, "'\(path)' has compressed entries ('\(entry.name)' is \(entry.method)); tiles are read in place, so rebuild it with every entry stored (zip -0)")
            }
            let ext = tiles.kind == .vectorTilePackage ? ".vtpk" : ".tpkx"
            guard file.lowercased().hasSuffix(ext) else {
                throw self.error(.invalidValue, key, line, "'\(path)' must have the \(ext) extension that readers look for")
            }
            return (file, tiles)
        }

        /// The tile package's own name, else its file name without the extension.
        static func title(of tiles: TilePackage, file: String) -> String {
            tiles.name.flatMap { $0 == "Map" || $0.isEmpty ? nil : $0 } ?? String(FileSystem.lastComponent(file).dropLast(5))
        }

        /// Why a raster tile package is not on the Web Mercator tiling scheme (level z at
        /// 156543.034 / 2^z metres per pixel from the world's top-left corner); nil when it is.
        static func webMercatorProblem(_ tiles: TilePackage) -> String? {
            guard let info = tiles.tileInfo else { return "has no tileInfo in its root.json" }
            let wkid = info.object("spatialReference")?.int("latestWkid") ?? info.object("spatialReference")?.int("wkid")
            guard wkid == 3857 || wkid == 102100 else { return "is in spatial reference \(wkid.map(String.init) ?? "unknown"), not Web Mercator (3857)" }
            guard info.int("rows") == 256, info.int("cols") == 256 else { return "has \(info.int("cols") ?? 0)-pixel tiles, not 256" }
            let origin = info.object("origin")
            guard let x = origin?.double("x"), let y = origin?.double("y"), abs(x + 20037508.342787) < 1, abs(y - 20037508.342787) < 1 else {
                return "has its tiling origin elsewhere than the world's top-left corner"
            }
            for case .object(let lod) in info.array("lods") ?? [] {
                guard let level = lod.int("level"), let resolution = lod.double("resolution"),
                    abs(resolution - 156543.03392800014 / Double(1 << min(max(level, 0), 30))) < resolution * 1e-6
                else { return "has a level of detail off the standard scales" }
            }
            return nil
        }

        /// The package extent: the project's, else the union of the layers' (or the backdrop's).
        func packageExtent(sources: [ResolvedSource], backdrop: ResolvedBackdrop?) throws -> BoundingBox {
            if let extent = project.extent { return extent }
            let used = Set(project.maps.flatMap { $0.layers.map(\.source) })
            if let box = Self.extent(of: sources.filter { used.contains($0.spec.name) }) { return box }
            if let backdrop = backdrop?.extent { return backdrop }
            throw error(.noExtent, "extent", nil, "cannot work out the package extent from the layers (their tables record no extent in EPSG:4326 or EPSG:3857); give 'extent: [xmin, ymin, xmax, ymax]' in WGS84 degrees")
        }

        /// Where a map opens when the project gives it no extent: its own layers' extent with a
        /// margin of 5% each side, so a map of a city's trees opens on the trees even when
        /// another map of the package shows the world; nil when its layers record none.
        func mapExtent(_ spec: Project.MapSpec, sources: [String: Packager.ResolvedSource]) -> BoundingBox? {
            guard var box = Self.extent(of: spec.layers.compactMap { sources[$0.source] }) else { return nil }
            let dx = (box.maxX - box.minX) * 0.05, dy = (box.maxY - box.minY) * 0.05
            box = BoundingBox(minX: max(box.minX - dx, -180), minY: max(box.minY - dy, -90), maxX: min(box.maxX + dx, 180), maxY: min(box.maxY + dy, 90))
            return box
        }

        /// The union of the sources' extents (WGS84); a single point, or points on one line,
        /// still get an area to show.
        static func extent(of sources: [ResolvedSource]) -> BoundingBox? {
            let extents = sources.compactMap(\.extent)
            guard let first = extents.first else { return nil }
            var box = extents.dropFirst().reduce(first) { $0.union($1) }
            if box.maxX - box.minX < 0.001 { box.minX -= 0.005; box.maxX += 0.005 }
            if box.maxY - box.minY < 0.001 { box.minY -= 0.005; box.maxY += 0.005 }
            return box
        }

        func readImage(_ path: String, key: String) throws -> [UInt8] {
            let bytes: [UInt8]
            do {
                bytes = try ByteRange(file: try RandomAccessFile(path: resolve(path))).readAll()
            } catch {
                throw self.error(.file(error.kind), key, nil, "cannot read '\(path)': \(error.message)")
            }
            guard ImageKind(bytes) != nil else {
                throw self.error(.notAnImage, key, nil, "'\(path)' is not a PNG or JPEG image")
            }
            return bytes
        }
    }
}
