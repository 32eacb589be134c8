#if canImport(Glibc)
import Glibc
#endif
import MapbookData
import MapbookPackage
import MapbookSupport

extension Packager {
    /// What importing the sources did, per source, for `create` and `--dry-run` to print.
    public struct ImportedLayer: Sendable {
        public var source: String
        public var file: String
        public var table: String
        public var summary: LayerImporter.Summary
    }

    /// The imported sources: the temporary data.gpkg (nil in a dry run) and what each layer held.
    struct ImportResult {
        var dataFile: String?
        var layers: [String: ImportedLayer] = [:]
        var order: [String] = []
    }

    /// Whether a source is an Esri mobile geodatabase, which is packaged as it is.
    static func isGeodatabase(_ file: String) -> Bool {
        guard let handle = try? RandomAccessFile(path: file), handle.size >= 16,
            let head = try? handle.read(at: 0, count: 16), head.starts(with: Array("SQLite format 3".utf8)),
            let db = try? SQLiteDatabase(readOnlyPath: file)
        else { return false }
        return (try? db.tableExists("GDB_Items")) ?? false
    }

    /// The table name a source gets in data.gpkg: its project name, made a plain identifier.
    static func tableName(_ source: String) -> String {
        var out = ""
        for u in source.unicodeScalars {
            if (u >= "a" && u <= "z") || (u >= "A" && u <= "Z") || (u >= "0" && u <= "9") || u == "_" {
                out.unicodeScalars.append(u)
            } else {
                out += "_"
            }
        }
        if out.isEmpty || out.first!.isNumber { out = "t_" + out }
        if out.lowercased().hasPrefix("gpkg_") || out.lowercased().hasPrefix("sqlite_") || out.lowercased().hasPrefix("rtree_") { out = "t_" + out }
        return out
    }

    /// Opens a data file the way `create` reads a source (GeoJSON, CSV, shapefile, zipped
    /// shapefile, GeoPackage), for commands that take files rather than a project.
    public static func openSource(path: String, name: String) throws -> FeatureReader {
        let project = Project(file: path, directory: ".", name: name, title: name)
        let spec = Project.SourceSpec(name: name, path: path, key: name)
        return try reader(for: spec, file: path, context: Context(project: project))
    }

    /// Opens the reader that fits a source file.
    static func reader(for spec: Project.SourceSpec, file: String, context: Context) throws -> FeatureReader {
        let lower = file.lowercased()
        let crs = try spec.crs.map { text -> CoordinateReferenceSystem in
            guard let crs = CoordinateReferenceSystem(userText: text) else {
                throw context.error(.invalidValue, spec.key + ".crs", spec.line, "'\(text)' is not a coordinate system; use EPSG:n or WKT")
            }
            if let problem = CoordinateTransform.isKnown(crs) {
                throw context.error(.unknownCRS, spec.key + ".crs", spec.line, "PROJ does not know the coordinate system '\(text)': \(problem)")
            }
            return crs
        }
        var reader: FeatureReader
        if lower.hasSuffix(".geojson") || lower.hasSuffix(".json") {
            reader = try GeoJSONReader(path: file, layerName: spec.name)
        } else if lower.hasSuffix(".csv") || lower.hasSuffix(".tsv") || lower.hasSuffix(".txt") {
            var options = CSVOptions(x: spec.x, y: spec.y, geometry: spec.geometry, crs: crs)
            if let d = spec.delimiter {
                let bytes = Array((d == "\\t" || d.lowercased() == "tab" ? "\t" : d).utf8)
                guard bytes.count == 1 else { throw context.error(.invalidValue, spec.key + ".delimiter", spec.line, "the delimiter must be one character, not '\(d)'") }
                options.delimiter = bytes[0]
            } else if lower.hasSuffix(".tsv") {
                options.delimiter = 9
            }
            if let e = spec.encoding {
                guard let encoding = CSVOptions.Encoding(name: e) else {
                    throw context.error(.invalidValue, spec.key + ".encoding", spec.line, "unknown encoding '\(e)'; use utf-8, latin1 or windows-1252")
                }
                options.encoding = encoding
            }
            for (name, type) in spec.types { options.types[name] = FieldType(rawValue: type) ?? .text }
            reader = try CSVReader(path: file, options: options)
        } else if lower.hasSuffix(".shp") || lower.hasSuffix(".zip") {
            reader = try ShapefileReader(path: file, encoding: spec.encoding, layer: spec.layer)
        } else if lower.hasSuffix(".gpkg") {
            reader = try GeoPackageReader(path: file, table: spec.table)
        } else {
            throw context.error(.unsupported, spec.key + ".path", spec.line, "'\(spec.path)' is not a format mapbook reads; give a .geojson, .json, .csv, .tsv, .shp, a zipped shapefile (.zip), a .gpkg or an Esri .geodatabase")
        }
        if let crs, reader.schema.crs == nil || lower.hasSuffix(".csv") || lower.hasSuffix(".tsv") || lower.hasSuffix(".txt") {
            reader = OverridingCRS(reader, crs: crs)
        }
        return reader
    }

    /// Imports every source that is not a mobile geodatabase into one GeoPackage at `dataFile`
    /// (or, when nil, reads and counts everything without writing).
    static func importSources(
        _ project: Project, context: Context, dataFile: String?, timestamp: Int64,
        progress: ((String, Int) -> Void)?
    ) throws -> ImportResult {
        var result = ImportResult(dataFile: dataFile)
        let target = project.crs == 4326 ? CoordinateReferenceSystem.wgs84 : .webMercator
        let writer = try dataFile.map { try GeoPackageWriter(path: $0, crs: target, timestamp: timestamp) }
        var importer = LayerImporter(target: target)
        importer.extent = project.extent
        var tables: Set<String> = []
        var strictFailures: [(spec: Project.SourceSpec, lines: [String])] = []
        for spec in project.sources {
            let file = context.resolve(spec.path)
            guard access(file, R_OK) == 0 else {
                throw context.error(.file(.io(errno: errno)), spec.key + ".path", spec.line, "cannot read '\(spec.path)': \(FileSystem.errorMessage())")
            }
            if file.lowercased().hasSuffix(".gpkg") { try context.checkNoPendingChanges(spec, file: file) }
            if isGeodatabase(file) { continue }
            let reader: FeatureReader
            do {
                reader = try Self.reader(for: spec, file: file, context: context)
            } catch let error as DataError {
                throw context.error(.data(error.kind), spec.key, spec.line, error.description)
            }
            var table = tableName(spec.name)
            while tables.contains(table.lowercased()) { table += "_2" }
            tables.insert(table.lowercased())
            var layerImporter = importer
            layerImporter.progress = progress.map { p in { count in p(spec.name, count) } }
            let aliases = Dictionary(spec.aliases.map { ($0.name, $0.alias) }, uniquingKeysWith: { $1 })
            for (name, _) in spec.aliases where reader.schema.fieldIndex(name) == nil {
                throw context.error(.noSuchColumn, spec.key + ".aliases", spec.line, "'\(name)' is not a field of '\(spec.path)'; its fields are: \(reader.schema.fields.map(\.name).joined(separator: ", "))")
            }
            for (name, _) in spec.types where reader.schema.fieldIndex(name) == nil {
                throw context.error(.noSuchColumn, spec.key + ".types", spec.line, "'\(name)' is not a field of '\(spec.path)'; its fields are: \(reader.schema.fields.map(\.name).joined(separator: ", "))")
            }
            var summary: LayerImporter.Summary
            do {
                summary = try layerImporter.run(
                    reader, table: table, writer: writer, identifier: spec.title ?? spec.name,
                    description: "Imported from \(spec.path.split(separator: "/").last.map(String.init) ?? spec.path)",
                    aliases: aliases, metadata: nil)
            } catch let error as DataError {
                throw context.error(.data(error.kind), spec.key, spec.line, error.description)
            }
            try Self.checkNotEmpty(spec, summary: &summary, project: project, context: context)
            if project.strict && !(summary.report.isEmpty && summary.warnings.isEmpty) {
                strictFailures.append((spec, summary.warnings + summary.report.lines))
            }
            result.layers[spec.name] = ImportedLayer(source: spec.name, file: spec.path, table: table, summary: summary)
            result.order.append(spec.name)
        }
        // Every source with problems is named at once, so one run shows all there is to fix.
        if let first = strictFailures.first {
            let listed = strictFailures.map { spec, lines in
                "\(spec.key) '\(spec.path)':\n    " + lines.joined(separator: "\n    ")
            }
            throw context.error(.strictProblems, first.spec.key, first.spec.line, "\(strictFailures.count) source\(strictFailures.count == 1 ? " has" : "s have") problems and --strict is on:\n  " + listed.joined(separator: "\n  "))
        }
        try writer?.close()
        return result
    }
}

extension Packager {
    /// Refuses a source whose kind of geometry cannot be known (an empty GeoJSON would
    /// otherwise become a table listed as a map layer), and warns of one that gives its map
    /// nothing: no features (a CSV of only its header) unless it is an editable layer to be
    /// filled in the field, or every feature outside the project's extent (an extent in the
    /// wrong order or system, most likely). The warnings fail `--strict`.
    static func checkNotEmpty(_ spec: Project.SourceSpec, summary: inout LayerImporter.Summary, project: Project, context: Context) throws {
        let file = spec.path.split(separator: "/").last.map(String.init) ?? spec.path
        if summary.read == 0 {
            if summary.schema.geometryType == nil && spec.geometry?.lowercased() != "none" && file.lowercased().hasSuffix("json") {
                throw context.error(.empty, spec.key + ".path", spec.line, "'\(file)' holds no features, so what kind of geometry its layer has cannot be known; give it features (or, for a table without geometry, `geometry: none`)")
            }
            if summary.schema.geometryType != nil && spec.edit == nil {
                summary.warnings.append("'\(file)' holds no features: its layer is empty; give it data, or make it editable with `edit:` to collect features in the field")
            }
        } else if summary.kept == 0, summary.report.count(.outsideExtent) > 0, let extent = project.extent {
            summary.warnings.append("all \(summary.read) features lie outside the project's extent \(extent) (WGS84: xmin, ymin, xmax, ymax), so its layer is empty: its data lies elsewhere, or the extent's numbers are in the wrong order or system")
        }
    }
}

/// A reader whose coordinate system the project file gives.
final class OverridingCRS: FeatureReader {
    let base: FeatureReader
    let schema: LayerSchema
    init(_ base: FeatureReader, crs: CoordinateReferenceSystem) {
        self.base = base
        var s = base.schema
        s.crs = crs
        schema = s
    }
    var path: String { base.path }
    var report: ImportReport { base.report }
    func next() throws -> Feature? { try base.next() }
}

extension Packager {
    /// Records each imported layer's defaults in data.gpkg's `gpkg_metadata` (DESIGN.md 3.3):
    /// its fields with types and aliases, and the renderer and pop-up of the first map that
    /// shows it, as JSON, so a GIS opening data.gpkg alone finds how the package draws it.
    static func writeLayerDefaults(dataFile: String, imported: ImportResult, maps: [(fileName: String, map: MobileMap)], timestamp: Int64) throws {
        let database = try SQLiteDatabase(writablePath: dataFile, create: false)
        let time = String(ISODate.format(seconds: timestamp).dropLast()) + ".000Z"
        try database.execute("BEGIN")
        // After any metadata written before (editable layers' schemas).
        var id = try database.scalar("SELECT coalesce(max(id), 0) FROM gpkg_metadata")?.int64 ?? 0
        for name in imported.order {
            guard let layer = imported.layers[name] else { continue }
            var object = JSONObject()
            object["table"] = .string(layer.table)
            object["source"] = .string(layer.file)
            object["fields"] = .array(layer.summary.schema.fields.map { f in
                var o = JSONObject()
                o["name"] = .string(f.name)
                o["type"] = .string(f.type.esriFieldType)
                if let alias = f.alias { o["alias"] = .string(alias) }
                return .object(o)
            })
            let path = "file:./data.gpkg?table=\(layer.table)"
            for (_, map) in maps {
                let all = (map.map.operationalLayers ?? []) + (map.map.tables ?? [])
                guard let used = all.first(where: { $0.path == path }) else { continue }
                if let renderer = used.layerDefinition?.drawingInfo?.renderer { object["renderer"] = .object(renderer.json) }
                if let popup = used.popupInfo { object["popupInfo"] = .object(popup.json) }
                break
            }
            id += 1
            try database.query(
                "INSERT INTO gpkg_metadata (id, md_scope, md_standard_uri, mime_type, metadata) VALUES (?, 'dataset', 'https://mapbook.dev/layer-defaults', 'application/json', ?)",
                [.integer(id), .text(JSONWriter.string(.object(object), style: .compact))])
            try database.query(
                "INSERT INTO gpkg_metadata_reference (reference_scope, table_name, timestamp, md_file_id) VALUES ('table', ?, ?, ?)",
                [.text(layer.table), .text(time), .integer(id)])
        }
        try database.execute("COMMIT")
        try database.close()
    }
}
