import MapbookData
import MapbookPackage
import MapbookSupport
import Yams

/// A project file: what GIS staff write to describe a package (DESIGN.md section 4).
///
/// Keys are snake_case. Paths are relative to the project file's folder. Extents and
/// bookmark places are in WGS84 degrees. The full reference is docs/PROJECT.md.
public struct Project: Sendable {
    /// The project file's path, for messages.
    public var file: String
    /// The folder paths in the project are relative to.
    public var directory: String

    /// The package name: the manifest is `<name>.info`; defaults to the title without spaces.
    public var name: String
    public var title: String
    public var summary: String?
    /// May hold HTML.
    public var description: String?
    public var tags: [String] = []
    public var credits: String?
    public var useLimitations: String?
    /// The package GUID; by default derived from the name and title, so rebuilds keep it.
    public var guid: String?
    public var version: String?
    /// The package CRS as an EPSG code (3857 or 4326).
    public var crs: Int = 3857
    /// The package extent in WGS84; nil means computed from the layers.
    public var extent: BoundingBox?
    public var thumbnail: String?
    public var expiration: ExpirationSpec?
    public var sources: [SourceSpec] = []
    public var backdrop: BackdropSpec?
    /// Other base maps to choose from (`basemaps:`): existing tile packages stored as they are.
    public var basemaps: [BasemapSpec] = []
    /// The package's composite locator (`locator:`); nil: defaults, when a source has `search`.
    public var locator: CompositeLocatorSpec?
    public var network: NetworkSpec?
    public var maps: [MapSpec] = []
    /// Whether any dropped or changed feature fails the build (`create --strict`).
    public var strict = false
    /// The memory the backdrop's tiler may use, in bytes (`create --memory`).
    public var tilerMemory = 1 << 30

    public struct ExpirationSpec: Sendable {
        /// Unix seconds.
        public var date: Int64
        public var kind: Expiration.Kind
        public var message: String?
        public var line: Int?
    }

    /// A data source: a GeoJSON, CSV, Shapefile (or zipped Shapefile) or GeoPackage table,
    /// imported into the package's data.gpkg; or a table of an Esri mobile geodatabase,
    /// packaged as it is.
    public struct SourceSpec: Sendable {
        public var name: String
        public var path: String
        public var table: String?
        public var title: String?
        public var line: Int?
        public var key: String
        /// The source's coordinate system when the file does not say (CSV, a Shapefile
        /// without .prj): "EPSG:n" or WKT.
        public var crs: String?
        /// CSV: the coordinate columns, or a column of WKT / hex WKB.
        public var x: String?
        public var y: String?
        public var geometry: String?
        public var delimiter: String?
        /// Text encoding of a CSV or DBF ("utf-8", "latin1", "windows-1252").
        public var encoding: String?
        /// Column types that override inference: name -> integer|real|text|date|datetime|boolean.
        public var types: [(name: String, type: String)] = []
        /// Field aliases (gpkg_data_columns titles and pop-up labels): name -> alias.
        public var aliases: [(name: String, alias: String)] = []
        /// The shapefile to read in a zip holding several.
        public var layer: String?
        /// The source's single-field locators (`search:`), usually one.
        public var search: [SearchSpec] = []
        /// `edit:`: the layer is editable in the field, with these rules (issue 19).
        public var edit: EditSchema?
        public var editKey: String?
        public var editLine: Int?
    }

    /// A single-field locator on a source's field (DESIGN.md 3.5): one participant of the
    /// package's composite locator.
    public struct SearchSpec: Sendable {
        /// The field searched: a name, an ID or an address.
        public var field: String
        /// The field results show; default: the searched field.
        public var displayField: String?
        /// A numeric field: higher values first among equal matches (population, class).
        public var rankField: String?
        /// The fields results carry as attributes.
        public var outputFields: [String] = []
        /// Address points: reverse geocoding answers with them first. Default: the field's
        /// name contains "addr".
        public var isAddress: Bool
        /// The participant's name, shown with its results: default, the source's title, else
        /// its name (with the field, when the source has several locators).
        public var name: String
        /// The locator's folder under `locators/`: the source name, made a safe file name
        /// (with the field, when the source has several locators).
        public var folder: String
        public var line: Int?
        public var key: String
    }

    /// The composite locator: its name and an optional search-quality file.
    public struct CompositeLocatorSpec: Sendable {
        /// Names `locators/<name>.loc.json`; default `<package name>Locator`.
        public var name: String?
        /// A search-quality file (YAML or JSON): queries with the first result each should
        /// find, packaged as `locators/<name>.quality.json`.
        public var quality: String?
        public var line: Int?
        public var key: String
    }

    /// The reference backdrop: built from sources by the tiler (`layers`), or an existing
    /// vector tile package (`path`).
    public struct BackdropSpec: Sendable {
        public var path: String?
        public var title: String?
        public var layers: [BackdropLayerSpec] = []
        public var minZoom: Int = 0
        /// Nil: guessed from the spacing of the features.
        public var maxZoom: Int?
        public var maxTileBytes: Int = 500_000
        public var maxTileFeatures: Int = 200_000
        public var line: Int?
        public var key: String
    }

    /// A base map offered beside the backdrop (the viewers' basemap picker): an existing
    /// compact tile package (`.tpkx`, raster tiles) or vector tile package (`.vtpk`).
    public struct BasemapSpec: Sendable {
        public var path: String
        public var title: String?
        public var line: Int?
        public var key: String
    }

    /// A source drawn in the backdrop: the fields its tiles carry, its zooms and its style.
    public struct BackdropLayerSpec: Sendable {
        public var source: String
        /// The fields written to the tiles; nil: those the renderer and a label need.
        public var fields: [String]?
        public var minZoom: Int?
        public var maxZoom: Int?
        /// A web map renderer (as for map layers), turned into the MapLibre style.
        public var renderer: JSONValue?
        /// The field whose text labels the features (its glyphs ship in the backdrop).
        public var label: String?
        public var line: Int?
        public var key: String
    }

    public struct MapSpec: Sendable {
        public var name: String
        public var title: String?
        public var summary: String?
        public var description: String?
        public var tags: [String]?
        public var thumbnail: String?
        /// The initial extent in WGS84; defaults to the package extent.
        public var extent: BoundingBox?
        /// Whether the package backdrop is this map's base map.
        public var showBackdrop: Bool = true
        public var layers: [LayerSpec] = []
        public var bookmarks: [BookmarkSpec] = []
        public var line: Int?
        public var key: String
    }

    public struct LayerSpec: Sendable {
        public var source: String
        public var title: String?
        public var visible: Bool = true
        public var opacity: Double?
        public var minScale: Double?
        public var maxScale: Double?
        public var definitionExpression: String?
        /// A web map renderer (`simple`, `uniqueValue`, `classBreaks`) as JSON.
        public var renderer: JSONValue?
        public var popup: PopupSpec?
        /// Label classes, written as web map `labelingInfo`.
        public var labels: [LabelSpec] = []
        public var line: Int?
        public var key: String
    }

    /// A label class of a layer: an ArcGIS `labelingInfo` entry, checked against the
    /// source's columns when the package is built.
    public struct LabelSpec: Sendable {
        public var labelClass: LabelClass
        public var line: Int?
        public var key: String
    }

    public struct PopupSpec: Sendable {
        public var title: String?
        /// Field name and label, in order.
        public var fields: [(name: String, label: String?)]?
        /// Web-map `format` objects by field: decimal places, thousands separators, date format.
        public var formats: [String: JSONObject] = [:]
    }

    public struct BookmarkSpec: Sendable {
        public enum Place: Sendable {
            /// WGS84 degrees.
            case extent(BoundingBox)
            /// WGS84 longitude and latitude and a map scale (1:scale).
            case center(longitude: Double, latitude: Double, scale: Double)
        }

        public var name: String
        public var place: Place
    }
}

extension Project {
    static let topKeys = [
        "name", "title", "summary", "description", "tags", "credits", "use_limitations", "guid", "version",
        "crs", "extent", "thumbnail", "expiration", "sources", "backdrop", "basemaps", "locator", "network", "maps",
    ]

    /// Reads a YAML or JSON project file.
    public static func load(path: String) throws -> Project {
        let bytes: [UInt8]
        do {
            bytes = try ByteRange(file: try RandomAccessFile(path: path)).readAll()
        } catch {
            throw ProjectError(kind: .file(error.kind), file: path, key: "", line: nil, message: "cannot read the project file: \(error.message)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ProjectError(kind: .notUTF8, file: path, key: "", line: nil, message: "the project file is not UTF-8 text")
        }
        return try parse(text, file: path)
    }

    /// Parses project text; `file` names it in errors and anchors relative paths.
    public static func parse(_ text: String, file: String) throws -> Project {
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw Self.syntaxError(error, file: file)
        }
        guard let node else {
            throw ProjectError(kind: .empty, file: file, key: "", line: nil, message: "the project file is empty")
        }
        let root = ProjectNode(node: node, path: "", file: file)
        try root.checkKeys(topKeys)

        let title = try root.required("title").string()
        var project = Project(
            file: file, directory: FileSystem.parent(of: file),
            name: try root["name"]?.string() ?? Self.defaultName(title), title: title)
        guard EntryName.problem(project.name + ".info") == nil, !project.name.contains("/") else {
            throw (root["name"] ?? root).error(.invalidValue, "'\(project.name)' cannot be a file name")
        }
        project.summary = try root["summary"]?.string()
        project.description = try root["description"]?.string()
        project.tags = try root["tags"]?.strings() ?? []
        project.credits = try root["credits"]?.string()
        project.useLimitations = try root["use_limitations"]?.string()
        project.guid = try root["guid"]?.string()
        project.version = try root["version"]?.string()
        if let crs = root["crs"] {
            project.crs = try Self.parseCRS(crs)
        }
        if let extent = root["extent"] {
            if (try? extent.string()) == "auto" {
                project.extent = nil
            } else {
                project.extent = try extent.boundingBox()
            }
        }
        project.thumbnail = try root["thumbnail"]?.string()
        if let e = root["expiration"] {
            project.expiration = try Self.parseExpiration(e)
        }
        if let sources = root["sources"] {
            for (name, value) in try sources.entries() {
                project.sources.append(try Self.parseSource(name: name, value))
            }
        }
        if let backdrop = root["backdrop"] {
            project.backdrop = try Self.parseBackdrop(backdrop, sources: Set(project.sources.map(\.name)))
        }
        if let basemaps = root["basemaps"] {
            for item in try basemaps.items() {
                if item.node.scalar != nil {
                    project.basemaps.append(BasemapSpec(path: try item.string(), line: item.line, key: item.path))
                    continue
                }
                try item.checkKeys(["path", "title"])
                project.basemaps.append(BasemapSpec(path: try item.required("path").string(), title: try item["title"]?.string(), line: item.line, key: item.path))
            }
        }
        try Self.checkSearch(project.sources, file: file)
        if let locator = root["locator"] {
            project.locator = try Self.parseLocator(locator, hasSearch: project.sources.contains { !$0.search.isEmpty })
        }
        if let network = root["network"] {
            project.network = try Self.parseNetwork(network, sources: Set(project.sources.map(\.name)))
        }
        let maps = try root.required("maps")
        let mapNodes = try maps.items()
        guard !mapNodes.isEmpty else { throw maps.error(.missingKey, "a package needs at least one map") }
        var mapNames = Set<String>()
        for node in mapNodes {
            let map = try Self.parseMap(node, sources: Set(project.sources.map(\.name)))
            guard mapNames.insert(map.name.lowercased()).inserted else {
                throw node.error(.duplicateName, "two maps are named '\(map.name)'; map names must differ (ignoring case)")
            }
            project.maps.append(map)
        }
        return project
    }

    static func syntaxError(_ error: YamlError, file: String) -> ProjectError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let detail = context.map { "\(problem) \($0.text)" } ?? problem
            return ProjectError(kind: .syntax, file: file, key: "", line: mark.line, column: mark.column, message: "not valid YAML or JSON: \(detail)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            let keys = duplicates.map { "'\($0)'" }.joined(separator: ", ")
            return ProjectError(kind: .duplicateKey, file: file, key: "", line: context.mark.line, column: context.mark.column, message: "key \(keys) appears twice in the same mapping")
        default:
            return ProjectError(kind: .syntax, file: file, key: "", line: nil, message: "not valid YAML or JSON: \(error)")
        }
    }

    /// "Naperville Water Company" -> "NapervilleWaterCompany".
    static func defaultName(_ title: String) -> String {
        let kept = title.unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
        let name = String(String.UnicodeScalarView(kept))
        return name.isEmpty ? "Package" : name
    }

    static func parseCRS(_ node: ProjectNode) throws(ProjectError) -> Int {
        let text = (try? node.string()) ?? ""
        let code = Int(text) ?? Int(text.uppercased().replacingAll("EPSG:", with: ""))
        switch code {
        case 3857?, 102100?, 900913?: return 3857
        case 4326?: return 4326
        default:
            throw node.error(.unsupported, "the package CRS must be EPSG:3857 (Web Mercator) or EPSG:4326; '\(text)' is not supported")
        }
    }

    static func parseExpiration(_ node: ProjectNode) throws(ProjectError) -> ExpirationSpec {
        try node.checkKeys(["date", "type", "message"])
        let dateNode = try node.required("date")
        let text = try dateNode.string()
        guard let date = ISODate.parse(text) else {
            throw dateNode.error(.invalidValue, "'\(text)' is not a date; write YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ")
        }
        var kind = Expiration.Kind.allowExpiredAccess
        if let typeNode = node["type"] {
            let type = try typeNode.string()
            guard let k = Expiration.Kind(rawValue: type) else {
                throw typeNode.error(.invalidValue, "expiration type '\(type)' is not one of allowExpiredAccess, preventExpiredAccess")
            }
            kind = k
        }
        return ExpirationSpec(date: date, kind: kind, message: try node["message"]?.string(), line: node.line)
    }

    static func parseSource(name: String, _ node: ProjectNode) throws(ProjectError) -> SourceSpec {
        guard !name.isEmpty else { throw node.error(.missingKey, "a source needs a name") }
        if node.node.scalar != nil {
            return SourceSpec(name: name, path: try node.string(), table: nil, title: nil, line: node.line, key: node.path)
        }
        try node.checkKeys(["path", "table", "title", "crs", "x", "y", "geometry", "delimiter", "encoding", "types", "aliases", "layer", "search", "edit"])
        var spec = SourceSpec(
            name: name, path: try node.required("path").string(), table: try node["table"]?.string(),
            title: try node["title"]?.string(), line: node.line, key: node.path)
        if let n = node["crs"] {
            if let code = n.node.int { spec.crs = "EPSG:\(code)" } else { spec.crs = try n.string() }
        }
        spec.x = try node["x"]?.string()
        spec.y = try node["y"]?.string()
        spec.geometry = try node["geometry"]?.string()
        spec.delimiter = try node["delimiter"]?.string()
        spec.encoding = try node["encoding"]?.string()
        spec.layer = try node["layer"]?.string()
        if let types = node["types"] {
            for (field, value) in try types.entries() {
                let type = try value.string()
                guard ["integer", "real", "text", "date", "datetime", "boolean"].contains(type.lowercased()) else {
                    throw value.error(.invalidValue, "'\(type)' is not a field type; use integer, real, text, date, datetime or boolean")
                }
                spec.types.append((field, type.lowercased()))
            }
        }
        if let aliases = node["aliases"] {
            for (field, value) in try aliases.entries() { spec.aliases.append((field, try value.string())) }
        }
        if let search = node["search"] {
            spec.search = try parseSearch(search, source: spec)
        }
        if let edit = node["edit"] {
            spec.edit = try parseEdit(edit)
            spec.editKey = edit.path
            spec.editLine = edit.line
        }
        return spec
    }

    /// `edit: { fields: { NAME: { domain, range, required, default, read_only } }, tracking,
    /// conflicts, related: { TABLE: { key: COLUMN } }, attachments: true | { max_size_mb } }`,
    /// or `edit: true`. A domain is a list of values (each its own name) or a
    /// mapping of codes to names.
    static func parseEdit(_ node: ProjectNode) throws(ProjectError) -> EditSchema {
        if node.node.scalar != nil {
            guard try node.bool() else { throw node.error(.invalidValue, "edit: false is the same as no edit: key; remove it") }
            return EditSchema()
        }
        try node.checkKeys(["fields", "tracking", "conflicts", "related", "attachments"])
        var schema = EditSchema()
        // Table names are the sources' until the packager resolves them (mapping tables too).
        for (table, r) in try node["related"]?.entries() ?? [] {
            try r.checkKeys(["key"])
            schema.related.append(EditSchema.Relationship(table: table, key: try r.required("key").string(), mapping: ""))
        }
        if let a = node["attachments"] {
            var maxBytes = EditSchema.Attachments.defaultMaxBytes
            if a.node.mapping != nil {
                try a.checkKeys(["max_size_mb"])
                if let m = a["max_size_mb"] {
                    let mb = try m.double()
                    guard mb > 0, mb <= 1024 else { throw m.error(.invalidValue, "max_size_mb is between 0 and 1024") }
                    maxBytes = Int64(mb * 1_048_576)
                }
            } else if try !a.bool() {
                throw a.error(.invalidValue, "attachments: false is the same as no attachments: key; remove it")
            }
            schema.attachments = EditSchema.Attachments(table: "", mapping: "", maxBytes: maxBytes)
        }
        if let t = node["tracking"], try t.bool() { schema.tracking = EditSchema.Tracking() }
        if let c = node["conflicts"] {
            let text = try c.string()
            guard let policy = EditSchema.ConflictPolicy(rawValue: text) else {
                throw c.error(.invalidValue, "'\(text)' is not a conflict policy; use last_sync_wins or manual")
            }
            schema.conflicts = policy
        }
        func value(_ n: ProjectNode) throws(ProjectError) -> FieldValue {
            if let i = n.node.int { return .integer(Int64(i)) }
            if let d = n.node.float, n.node.int == nil { return .real(d) }
            return .text(try n.string())
        }
        for (field, f) in try node["fields"]?.entries() ?? [] {
            try f.checkKeys(["domain", "range", "required", "default", "read_only"])
            var rule = EditSchema.Rule(field: field)
            if let d = f["domain"] {
                var coded: [EditSchema.CodedValue] = []
                if d.node.mapping == nil {
                    for item in try d.items() {
                        let code = try value(item)
                        coded.append(.init(code: code, name: code.displayText ?? ""))
                    }
                } else {
                    for (code, name) in try d.entries() {
                        coded.append(.init(code: Int64(code).map { .integer($0) } ?? .text(code), name: try name.string()))
                    }
                }
                guard !coded.isEmpty else { throw d.error(.invalidValue, "a domain needs at least one value") }
                guard Set(coded.map(\.code)).count == coded.count else { throw d.error(.invalidValue, "the domain of '\(field)' lists a code twice") }
                rule.domain = .codedValues(coded)
            }
            if let r = f["range"] {
                guard rule.domain == nil else { throw r.error(.conflictingKeys, "'\(field)' has both a domain and a range; give one") }
                let bounds = try r.items()
                guard bounds.count == 2 else { throw r.error(.invalidValue, "a range is [min, max]") }
                let lo = try bounds[0].double(), hi = try bounds[1].double()
                guard lo <= hi else { throw r.error(.invalidValue, "the range's min \(lo) is above its max \(hi)") }
                rule.domain = .range(min: lo, max: hi)
            }
            rule.required = try f["required"]?.bool() ?? false
            rule.readOnly = try f["read_only"]?.bool() ?? false
            if let d = f["default"] { rule.defaultValue = try value(d) }
            schema.rules.append(rule)
        }
        return schema
    }

    static func parseMap(_ node: ProjectNode, sources: Set<String>) throws(ProjectError) -> MapSpec {
        try node.checkKeys(["name", "title", "summary", "description", "tags", "thumbnail", "extent", "backdrop", "layers", "bookmarks"])
        let name = try node.required("name").string()
        guard !name.isEmpty, EntryName.problem(name + ".mmap") == nil, !name.contains("/") else {
            throw (node["name"] ?? node).error(.invalidValue, "'\(name)' cannot be a map file name")
        }
        var map = MapSpec(name: name, line: node.line, key: node.path)
        map.title = try node["title"]?.string()
        map.summary = try node["summary"]?.string()
        map.description = try node["description"]?.string()
        map.tags = try node["tags"]?.strings()
        map.thumbnail = try node["thumbnail"]?.string()
        map.extent = try node["extent"]?.boundingBox()
        map.showBackdrop = try node["backdrop"]?.bool() ?? true
        if let layers = node["layers"] {
            for layerNode in try layers.items() {
                map.layers.append(try parseLayer(layerNode, sources: sources))
            }
        }
        if let bookmarks = node["bookmarks"] {
            for b in try bookmarks.items() {
                map.bookmarks.append(try parseBookmark(b))
            }
        }
        return map
    }

    static func parseBackdrop(_ node: ProjectNode, sources: Set<String>) throws(ProjectError) -> BackdropSpec {
        try node.checkKeys(["path", "title", "name", "layers", "minzoom", "maxzoom", "max_tile_bytes", "max_tile_features"])
        var spec = BackdropSpec(path: try node["path"]?.string(), title: try (node["title"] ?? node["name"])?.string(), line: node.line, key: node.path)
        func zoom(_ key: String, in node: ProjectNode) throws(ProjectError) -> Int? {
            guard let z = node[key] else { return nil }
            let value = try z.int()
            guard (0...24).contains(value) else { throw z.error(.invalidValue, "\(key) must be a zoom level from 0 to 24, not \(value)") }
            return value
        }
        spec.minZoom = try zoom("minzoom", in: node) ?? 0
        spec.maxZoom = try zoom("maxzoom", in: node)
        if let maxZoom = spec.maxZoom, maxZoom < spec.minZoom {
            throw node.error(.invalidValue, "maxzoom (\(maxZoom)) is below minzoom (\(spec.minZoom))")
        }
        if let bytes = node["max_tile_bytes"] {
            spec.maxTileBytes = try bytes.int()
            guard spec.maxTileBytes >= 1024 else { throw bytes.error(.invalidValue, "max_tile_bytes must be at least 1024") }
        }
        if let features = node["max_tile_features"] {
            spec.maxTileFeatures = try features.int()
            guard spec.maxTileFeatures >= 1 else { throw features.error(.invalidValue, "max_tile_features must be at least 1") }
        }
        if let layers = node["layers"] {
            for item in try layers.items() {
                var layer: BackdropLayerSpec
                if item.node.scalar != nil {
                    layer = BackdropLayerSpec(source: try item.string(), line: item.line, key: item.path)
                } else {
                    try item.checkKeys(["source", "fields", "minzoom", "maxzoom", "renderer", "label"])
                    layer = BackdropLayerSpec(source: try item.required("source").string(), line: item.line, key: item.path)
                    if let fields = item["fields"] { layer.fields = try fields.items().map { (f) throws(ProjectError) in try f.string() } }
                    layer.minZoom = try zoom("minzoom", in: item)
                    layer.maxZoom = try zoom("maxzoom", in: item)
                    if let renderer = item["renderer"] { layer.renderer = try parseRenderer(renderer) }
                    layer.label = try item["label"]?.string()
                }
                guard sources.contains(layer.source) else {
                    throw item.error(.unknownSource, "no source named '\(layer.source)'; sources are: \(sources.sorted().joined(separator: ", "))")
                }
                spec.layers.append(layer)
            }
        }
        switch (spec.path, spec.layers.isEmpty) {
        case (nil, true): throw node.error(.missingKey, "a backdrop needs 'layers' (sources to build vector tiles from) or 'path' (an existing .vtpk)")
        case (.some, false): throw node.error(.conflictingKeys, "a backdrop is either built from 'layers' or taken from 'path', not both")
        default: break
        }
        return spec
    }

    static func parseLayer(_ node: ProjectNode, sources: Set<String>) throws(ProjectError) -> LayerSpec {
        if node.node.scalar != nil {
            let source = try node.string()
            guard sources.contains(source) else { throw node.error(.unknownSource, "no source named '\(source)'; sources are: \(sources.sorted().joined(separator: ", "))") }
            return LayerSpec(source: source, line: node.line, key: node.path)
        }
        try node.checkKeys(["source", "title", "visible", "opacity", "min_scale", "max_scale", "definition_expression", "renderer", "popup", "labels"])
        let sourceNode = try node.required("source")
        let source = try sourceNode.string()
        guard sources.contains(source) else {
            throw sourceNode.error(.unknownSource, "no source named '\(source)'; sources are: \(sources.sorted().joined(separator: ", "))")
        }
        var layer = LayerSpec(source: source, line: node.line, key: node.path)
        layer.title = try node["title"]?.string()
        layer.visible = try node["visible"]?.bool() ?? true
        if let opacity = node["opacity"] {
            let value = try opacity.double()
            guard (0...1).contains(value) else { throw opacity.error(.invalidValue, "opacity must be between 0 and 1") }
            layer.opacity = value
        }
        layer.minScale = try node["min_scale"]?.double()
        layer.maxScale = try node["max_scale"]?.double()
        if let lo = layer.minScale, let hi = layer.maxScale, lo > 0, hi > 0, hi >= lo {
            throw node.error(.invalidValue, "min_scale (\(JSONWriter.formatNumber(lo))) must be larger than max_scale (\(JSONWriter.formatNumber(hi))): min_scale is the most zoomed-out scale")
        }
        layer.definitionExpression = try node["definition_expression"]?.string()
        if let renderer = node["renderer"] {
            layer.renderer = try parseRenderer(renderer)
        }
        if let popup = node["popup"] {
            try popup.checkKeys(["title", "fields"])
            var spec = PopupSpec(title: try popup["title"]?.string())
            if let fields = popup["fields"] {
                var list: [(String, String?)] = []
                for f in try fields.items() {
                    if f.node.scalar != nil {
                        list.append((try f.string(), nil))
                    } else {
                        try f.checkKeys(["name", "label", "places", "digit_separator", "date_format"])
                        let name = try f.required("name").string()
                        list.append((name, try f["label"]?.string()))
                        var format = JSONObject()
                        if let places = f["places"] {
                            let n = try places.int()
                            guard (0...15).contains(n) else { throw places.error(.invalidValue, "places must be between 0 and 15") }
                            format["places"] = .integer(Int64(n))
                        }
                        if let separator = f["digit_separator"] { format["digitSeparator"] = .bool(try separator.bool()) }
                        if let date = f["date_format"] {
                            let text = try date.string()
                            let known = ["shortDate", "shortDateLE", "longMonthDayYear", "dayShortMonthYear", "longDate", "shortDateShortTime", "shortDateLEShortTime", "shortDateShortTime24", "shortDateLEShortTime24", "shortDateLongTime", "shortDateLELongTime", "shortDateLongTime24", "shortDateLELongTime24", "longMonthYear", "shortMonthYear", "year"]
                            guard known.contains(text) else {
                                throw date.error(.invalidValue, "unknown date_format '\(text)'; use one of \(known.joined(separator: ", "))")
                            }
                            format["dateFormat"] = .string(text)
                        }
                        if !format.isEmpty { spec.formats[name] = format }
                    }
                }
                spec.fields = list
            }
            layer.popup = spec
        }
        if let labels = node["labels"] {
            layer.labels = try labels.items().map(parseLabel)
        }
        return layer
    }

    /// Label placements by their project name, as ArcGIS names them: for points, lines and
    /// polygons.
    static let labelPlacements: [String: String] = [
        "above": "esriServerPointLabelPlacementAboveCenter", "below": "esriServerPointLabelPlacementBelowCenter",
        "left": "esriServerPointLabelPlacementCenterLeft", "right": "esriServerPointLabelPlacementCenterRight",
        "center": "esriServerPointLabelPlacementCenterCenter",
        "above-left": "esriServerPointLabelPlacementAboveLeft", "above-right": "esriServerPointLabelPlacementAboveRight",
        "below-left": "esriServerPointLabelPlacementBelowLeft", "below-right": "esriServerPointLabelPlacementBelowRight",
        "along": "esriServerLinePlacementCenterAlong", "above-along": "esriServerLinePlacementAboveAlong",
        "below-along": "esriServerLinePlacementBelowAlong", "horizontal": "esriServerPolygonPlacementAlwaysHorizontal",
    ]

    /// One label class: `field`, a `text` template with `{FIELD}`s, or an Arcade `expression`;
    /// its look (`color`, `size` in points, `font`, `bold`, `italic`, `halo`, `halo_size`),
    /// `placement`, scale range, `where` filter and whether labels may `overlap`.
    static func parseLabel(_ node: ProjectNode) throws(ProjectError) -> LabelSpec {
        try node.checkKeys([
            "field", "text", "expression", "color", "size", "font", "bold", "italic", "halo", "halo_size", "placement",
            "min_scale", "max_scale", "where", "overlap", "coded_values",
        ])
        var json = JSONObject()
        let given = ["field", "text", "expression"].filter { node[$0] != nil }
        guard given.count == 1 else {
            throw node.error(.missingKey, "a label needs one of 'field' (a column), 'text' (with {FIELD}s) or 'expression' (Arcade)")
        }
        if let field = node["field"] {
            json["labelExpressionInfo"] = .object(["expression": .string("$feature[\"\(try field.string())\"]")])
        } else if let text = node["text"] {
            json["labelExpressionInfo"] = .object(["value": .string(try text.string())])
        } else if let expression = node["expression"] {
            json["labelExpressionInfo"] = .object(["expression": .string(try expression.string())])
        }
        func color(_ key: String) throws(ProjectError) -> RGBAColor? {
            guard let value = node[key] else { return nil }
            let text = try value.string()
            guard let color = RGBAColor(hex: text) else { throw value.error(.invalidValue, "colour '\(text)' is not #rrggbb or #rrggbbaa") }
            return color
        }
        var symbol = TextSymbol(color: try color("color") ?? RGBAColor(red: 0, green: 0, blue: 0), size: try node["size"]?.double() ?? 9)
        if let size = symbol.fontSize, !(size > 0 && size <= 200) { throw node["size"]!.error(.invalidValue, "size must be more than 0 and at most 200 points") }
        symbol.fontFamily = try node["font"]?.string() ?? "Noto Sans"
        if try node["bold"]?.bool() == true { symbol.fontWeight = "bold" }
        if try node["italic"]?.bool() == true { symbol.fontStyle = "italic" }
        if let halo = try color("halo") {
            symbol.haloColor = halo
            symbol.haloSize = try node["halo_size"]?.double() ?? 1
        }
        json["symbol"] = symbol.jsonValue
        if let placement = node["placement"] {
            let name = try placement.string()
            guard let esri = labelPlacements[name] else {
                throw placement.error(.invalidValue, "unknown placement '\(name)'; use one of \(labelPlacements.keys.sorted().joined(separator: ", "))")
            }
            json["labelPlacement"] = .string(esri)
        }
        if let v = try node["min_scale"]?.double() { json["minScale"] = .double(v) }
        if let v = try node["max_scale"]?.double() { json["maxScale"] = .double(v) }
        if let v = try node["where"]?.string() { json["where"] = .string(v) }
        if try node["overlap"]?.bool() == true { json["deconflictionStrategy"] = "none" }
        if let v = try node["coded_values"]?.bool() { json["useCodedValues"] = .bool(v) }
        let labelClass = LabelClass(json: json)
        if let problem = labelClass.problem { throw (node["expression"] ?? node).error(.invalidValue, problem) }
        return LabelSpec(labelClass: labelClass, line: node.line, key: node.path)
    }

    /// A web map renderer written in the project file, with `#rrggbb` colours allowed.
    static func parseRenderer(_ node: ProjectNode) throws(ProjectError) -> JSONValue {
        let json = try node.json()
        // The short form ({uniqueValue: {field: F}}, ...) is completed from the data later.
        if let object = json.objectValue, object.count == 1, let kind = object.keys.first,
            ["uniqueValue", "classBreaks", "simple"].contains(kind)
        {
            guard object[kind]?.objectValue != nil else {
                throw node.error(.wrongType, "'\(kind)' takes options, e.g. \(kind): { field: NAME }")
            }
            if case .object(let options)? = object[kind] {
                let known: [String: [String]] = [
                    "uniqueValue": ["field", "values"], "classBreaks": ["field", "breaks", "method", "classes"],
                    "simple": ["color", "size", "width"],
                ]
                for key in options.keys where !known[kind]!.contains(key) {
                    throw node.error(.unknownKey, "unknown \(kind) option '\(key)'; it takes \(known[kind]!.joined(separator: ", "))")
                }
            }
            return json
        }
        guard let object = json.objectValue, let type = object.string("type") else {
            throw node.error(.wrongType, "a renderer is a web map renderer with a 'type' (simple, uniqueValue or classBreaks)")
        }
        guard ["simple", "uniqueValue", "classBreaks"].contains(type) else {
            throw (node["type"] ?? node).error(.invalidValue, "renderer type '\(type)' is not one of simple, uniqueValue, classBreaks")
        }
        switch type {
        case "simple":
            guard object.object("symbol") != nil else { throw node.error(.missingKey, "a simple renderer needs a 'symbol'") }
        case "uniqueValue":
            guard object.string("field1") != nil else { throw node.error(.missingKey, "a uniqueValue renderer needs 'field1'") }
        default:
            guard object.string("field") != nil else { throw node.error(.missingKey, "a classBreaks renderer needs 'field'") }
        }
        return try convertColors(json, node: node)
    }

    /// Replaces `"#rrggbb"` / `"#rrggbbaa"` colour strings with web map `[r, g, b, a]` arrays.
    static func convertColors(_ value: JSONValue, node: ProjectNode) throws(ProjectError) -> JSONValue {
        switch value {
        case .object(var object):
            for (key, v) in object {
                if key == "color", case .string(let s) = v {
                    guard let color = RGBAColor(hex: s) else {
                        throw node.error(.invalidValue, "colour '\(s)' is not #rrggbb or #rrggbbaa")
                    }
                    object[key] = color.jsonValue
                } else {
                    object[key] = try convertColors(v, node: node)
                }
            }
            return .object(object)
        case .array(let items):
            var out: [JSONValue] = []
            for item in items { out.append(try convertColors(item, node: node)) }
            return .array(out)
        default:
            return value
        }
    }

    static func parseBookmark(_ node: ProjectNode) throws(ProjectError) -> BookmarkSpec {
        try node.checkKeys(["name", "extent", "center", "scale"])
        let name = try node.required("name").string()
        if let extent = node["extent"] {
            guard node["center"] == nil else { throw node.error(.conflictingKeys, "give a bookmark either 'extent' or 'center' and 'scale', not both") }
            return BookmarkSpec(name: name, place: .extent(try extent.boundingBox()))
        }
        guard let center = node["center"] else {
            throw node.error(.missingKey, "bookmark '\(name)' needs 'extent: [xmin, ymin, xmax, ymax]' or 'center: [lon, lat]' with 'scale'")
        }
        let values = try center.items()
        guard values.count == 2 else { throw center.error(.wrongType, "expected [longitude, latitude]") }
        let lon = try values[0].double(), lat = try values[1].double()
        guard (-180...180).contains(lon), (-90...90).contains(lat) else {
            throw center.error(.invalidValue, "[\(lon), \(lat)] is not a longitude and latitude in degrees")
        }
        let scaleNode = try node.required("scale")
        let scale = try scaleNode.double()
        guard scale > 0 else { throw scaleNode.error(.invalidValue, "the scale must be positive (1:scale)") }
        return BookmarkSpec(name: name, place: .center(longitude: lon, latitude: lat, scale: scale))
    }
}
