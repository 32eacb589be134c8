import MapbookData
import MapbookPackage
import MapbookSupport

extension Packager.Context {
    /// Builds one `.mmap`: layers, base map, initial viewpoint, bookmarks and item.
    func buildMap(
        _ spec: Project.MapSpec, sources: [String: Packager.ResolvedSource], backdrop: Packager.ResolvedBackdrop?, basemaps: [Packager.ResolvedBasemap],
        packageExtent: BoundingBox, spatialReference: SpatialReference, packageGUID: String, packageThumbnail: [UInt8]?
    ) throws -> MobileMap {
        var map = WebMap(spatialReference: spatialReference)
        var usedIDs = Set<String>()
        var layers: [OperationalLayer] = []
        var tables: [OperationalLayer] = []
        for (index, layerSpec) in spec.layers.enumerated() {
            guard let source = sources[layerSpec.source] else {
                throw error(.unknownSource, layerSpec.key + ".source", layerSpec.line, "no source named '\(layerSpec.source)'")
            }
            var id = layerSpec.source
            var n = 2
            while !usedIDs.insert(id).inserted {
                id = "\(layerSpec.source)-\(n)"
                n += 1
            }
            let layer = try buildLayer(layerSpec, id: id, index: index, source: source)
            if source.isTable { tables.append(layer) } else { layers.append(layer) }
        }
        map.operationalLayers = layers
        if !tables.isEmpty { map.tables = tables }
        if spec.showBackdrop, backdrop != nil || !basemaps.isEmpty {
            // The backdrop is shown; the other base maps are there to choose from (the viewers'
            // basemap picker), hidden, or the first of them when there is no backdrop.
            var layers = backdrop.map { [BaseMap.vectorTileLayer(id: "backdrop", title: $0.title, file: $0.entry)] } ?? []
            for (i, basemap) in basemaps.enumerated() {
                let id = "basemap-\(i + 1)", visible = layers.isEmpty
                layers.append(basemap.kind == .vectorTilePackage
                    ? BaseMap.vectorTileLayer(id: id, title: basemap.title, file: basemap.entry, visible: visible)
                    : BaseMap.tiledLayer(id: id, title: basemap.title, file: basemap.entry, visible: visible))
            }
            map.baseMap = BaseMap(title: backdrop?.title ?? basemaps[0].title, layers: layers)
        } else {
            map.baseMap = BaseMap(title: "No basemap", layers: [])
        }
        let extent = spec.extent ?? mapExtent(spec, sources: sources) ?? packageExtent
        map.initialState = InitialState(viewpoint: Viewpoint(extent: envelope(extent, in: spatialReference)))
        map.bookmarks = spec.bookmarks.map { bookmark(for: $0, in: spatialReference) }

        let guid = Packager.derivedGUID(packageGUID + "\n" + spec.name)
        var item = MapItem(guid: guid, name: spec.name, title: spec.title ?? spec.name)
        item.snippet = spec.summary ?? ""
        item.summary = spec.summary ?? ""
        item.description = spec.description ?? ""
        item.tags = spec.tags ?? project.tags
        item.extent = Envelope(xmin: extent.minX, ymin: extent.minY, xmax: extent.maxX, ymax: extent.maxY, spatialReference: .wgs84)
        item.spatialReference = spatialReference
        let thumbnail = try spec.thumbnail.map { try readImage($0, key: spec.key + ".thumbnail") } ?? packageThumbnail
        item.thumbnail = thumbnail.map { DataURI.encode($0, mimeType: ImageKind($0)!.mimeType) }
        return MobileMap(map: map, item: item)
    }

    /// A WGS84 box as an envelope in the map's spatial reference.
    func envelope(_ box: BoundingBox, in spatialReference: SpatialReference) -> Envelope {
        rounded(spatialReference.isWebMercator ? WebMercator.project(box) : box, in: spatialReference)
    }

    /// `b` (already in the map's units) as an envelope, rounded.
    func rounded(_ b: BoundingBox, in spatialReference: SpatialReference) -> Envelope {
        // Centimetres (or 1e-9 degrees) are finer than any map needs; rounding keeps the
        // projection's floating-point noise out of the files.
        let step = spatialReference.isWebMercator ? 100.0 : 1e9
        func r(_ v: Double) -> Double { (v * step).rounded() / step }
        return Envelope(xmin: r(b.minX), ymin: r(b.minY), xmax: r(b.maxX), ymax: r(b.maxY), spatialReference: spatialReference)
    }

    func bookmark(for spec: Project.BookmarkSpec, in spatialReference: SpatialReference) -> Bookmark {
        switch spec.place {
        case .extent(let box):
            let e = envelope(box, in: spatialReference)
            return Bookmark(name: spec.name, extent: e, viewpoint: Viewpoint(extent: e))
        case .center(let lon, let lat, let scale):
            // The extent a 1024 x 768 pixel view at 96 dpi shows at this scale. Esri measures
            // map scale in projected units (Web Mercator metres, as the tiling scheme's level
            // scales are), and for geographic maps in degrees of 111,319.49 m at the equator.
            let metresPerPixel = scale * 0.0254 / 96
            let (x, y) = spatialReference.isWebMercator ? WebMercator.project(longitude: lon, latitude: lat) : (lon, lat)
            let unitsPerPixel = spatialReference.isWebMercator ? metresPerPixel : metresPerPixel / 111_319.490_793
            let e = rounded(
                BoundingBox(minX: x - 512 * unitsPerPixel, minY: y - 384 * unitsPerPixel, maxX: x + 512 * unitsPerPixel, maxY: y + 384 * unitsPerPixel),
                in: spatialReference)
            let center = MapPoint(x: x, y: y, spatialReference: spatialReference)
            return Bookmark(name: spec.name, extent: e, viewpoint: Viewpoint(center: center, scale: scale))
        }
    }

    func buildLayer(_ spec: Project.LayerSpec, id: String, index: Int, source: Packager.ResolvedSource) throws -> OperationalLayer {
        let title = spec.title ?? source.spec.title ?? source.spec.name
        var layer = OperationalLayer(id: id, title: title, path: source.dataPath, visibility: spec.visible)
        layer.opacity = spec.opacity ?? 1
        layer.minScale = spec.minScale
        layer.maxScale = spec.maxScale
        let columnNames = source.columns.map(\.name)

        func checkField(_ field: String, _ what: String) throws {
            guard columnNames.contains(field) else {
                throw error(.noSuchColumn, spec.key + ".renderer", spec.line, "\(what) '\(field)' is not a column of \(source.table); its columns are: \(columnNames.joined(separator: ", "))")
            }
        }

        if source.isTable && spec.renderer != nil {
            throw error(.noGeometry, spec.key + ".renderer", spec.line, "\(source.table) is a table without geometry; it has no renderer")
        }
        var renderer: Renderer
        if let short = try self.renderer(for: spec, source: source, index: index, columnNames: columnNames) {
            renderer = short
        } else if let json = spec.renderer {
            renderer = Renderer(value: json)
            for field in renderer.fields { try checkField(field, "renderer field") }
        } else {
            renderer = .simple(SimpleRenderer(symbol: Self.defaultSymbol(geometryType: source.geometryType, index: index)))
        }
        if let expression = spec.definitionExpression {
            // Parsed into the safe subset of SQL a viewer runs, and run once with bound values.
            do {
                _ = try FeatureTable(database: try source.open(), table: source.table, definitionExpression: expression).count()
            } catch let e as FeatureTableError {
                throw error(.featureTable(e.kind), spec.key + ".definition_expression", spec.line, "'\(expression)' is not a valid filter on \(source.table): \(e.message)")
            }
        }
        layer.layerDefinition = LayerDefinition(drawingInfo: source.isTable ? nil : DrawingInfo(renderer: renderer), definitionExpression: spec.definitionExpression)
        if !spec.labels.isEmpty {
            if source.isTable {
                throw error(.noGeometry, spec.key + ".labels", spec.line, "\(source.table) is a table without geometry; it has no labels")
            }
            for label in spec.labels {
                if let placement = label.labelClass.placement, let problem = Self.placementProblem(placement, geometryType: source.geometryType) {
                    throw error(.invalidValue, label.key + ".placement", label.line, problem)
                }
                for field in label.labelClass.fields where !columnNames.contains(field) {
                    throw error(.noSuchColumn, label.key, label.line, "the label names '\(field)', not a column of \(source.table); its columns are: \(columnNames.joined(separator: ", "))")
                }
                if let clause = label.labelClass.whereClause {
                    do {
                        _ = try FeatureTable(database: try source.open(), table: source.table, definitionExpression: clause).count()
                    } catch let e as FeatureTableError {
                        // The message without the work file's path: the user never named it.
                        throw self.error(.invalidValue, label.key + ".where", label.line, "the label's where '\(clause)' cannot be run on \(source.table): \(e.message)")
                    } catch {
                        throw self.error(.invalidValue, label.key + ".where", label.line, "the label's where '\(clause)' cannot be run on \(source.table): \(error)")
                    }
                }
            }
            layer.layerDefinition?.drawingInfo?.labelingInfo = spec.labels.map(\.labelClass.jsonValue)
            layer.showLabels = true
        }
        if source.isTable {
            // Web map tables have no layer type, visibility or opacity.
            layer.layerType = nil
            layer.visibility = nil
            layer.opacity = nil
        }

        // Pop-ups show every attribute by default, the geometry and feature id excluded.
        var fields: [FieldInfo] = []
        // Labels default to the field aliases (gpkg_data_columns titles: the project's
        // `aliases:` and those the source GeoPackage carried).
        var aliases: [String: String] = [:]
        if let database = try? source.open(), (try? database.tableExists("gpkg_data_columns")) == true,
            let rows = try? database.query("SELECT column_name, title FROM gpkg_data_columns WHERE table_name = ?", [.text(source.table)])
        {
            for row in rows { if let c = row[0].text, let t = row[1].text, !t.isEmpty { aliases[c] = t } }
        }
        if let given = spec.popup?.fields {
            for (name, label) in given {
                guard columnNames.contains(name) else {
                    throw error(.noSuchColumn, spec.key + ".popup.fields", spec.line, "'\(name)' is not a column of \(source.table); its columns are: \(columnNames.joined(separator: ", "))")
                }
                var info = FieldInfo(fieldName: name, label: label ?? aliases[name])
                info.format = spec.popup?.formats[name]
                fields.append(info)
            }
        } else {
            for column in Self.attributeColumns(source) {
                fields.append(FieldInfo(fieldName: column.name, label: aliases[column.name]))
            }
        }
        if let schema = editable[spec.source] {
            for i in fields.indices { fields[i].isEditable = schema.isEditable(fields[i].fieldName ?? "") }
            let definition = editableDefinition(layer.layerDefinition?.original ?? JSONObject(), schema: schema, source: source, aliases: aliases)
            layer.layerDefinition?.original = definition
        }
        layer.popupInfo = PopupInfo(title: spec.popup?.title ?? title, fieldInfos: fields)
        if let schema = editable[spec.source] {
            if schema.attachments != nil { layer.popupInfo?.showAttachments = true }
            if !schema.related.isEmpty { layer.popupInfo?.original["relatedRecordsInfo"] = .object(["showRelatedRecords": .bool(true)]) }
        }
        return layer
    }

    /// A layer's attribute columns: every column but the geometry and the feature id.
    static func attributeColumns(_ source: Packager.ResolvedSource) -> [(name: String, type: String)] {
        let geometryTypes = ["geometry", "point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon", "geometrycollection", "geometryblob", "blob"]
        return source.columns.filter { !geometryTypes.contains($0.type.lowercased()) && $0.name.lowercased() != "fid" }
    }

    /// An editable layer's definition as ArcGIS writes a feature layer's: its `fields` with
    /// types, aliases, `nullable`, `editable`, defaults and domains, the `globalIdField`,
    /// `editFieldsInfo` and the editing `capabilities`.
    func editableDefinition(_ definition: JSONObject, schema: EditSchema, source: Packager.ResolvedSource, aliases: [String: String]) -> JSONObject {
        var o = definition
        var fields: [JSONValue] = [.object(["name": .string("fid"), "type": .string("esriFieldTypeOID"), "alias": .string("fid"), "editable": .bool(false), "nullable": .bool(false)])]
        for column in Self.attributeColumns(source) {
            var f = JSONObject()
            f["name"] = .string(column.name)
            let isGlobalID = column.name.lowercased() == schema.globalIdField.lowercased()
            f["type"] = .string(isGlobalID ? "esriFieldTypeGlobalID" : FieldType(gpkgDeclaration: column.type).esriFieldType)
            f["alias"] = .string(aliases[column.name] ?? column.name)
            let rule = schema.rule(column.name)
            f["editable"] = .bool(schema.isEditable(column.name))
            f["nullable"] = .bool(!isGlobalID && !(rule?.required ?? false))
            if let d = rule?.defaultValue { f["defaultValue"] = EditSchema.jsonValue(d) }
            if let domain = rule?.domain { f["domain"] = .object(EditSchema.domainJSON(domain, name: EditSchema.domainName(table: source.table, field: column.name))) }
            fields.append(.object(f))
        }
        o["fields"] = .array(fields)
        o["objectIdField"] = .string("fid")
        o["globalIdField"] = .string(schema.globalIdField)
        if case .object(let info)? = schema.json.objectValue?["editFieldsInfo"] { o["editFieldsInfo"] = .object(info) }
        o["capabilities"] = .string("Create,Delete,Query,Update,Editing")
        o["hasAttachments"] = .bool(schema.attachments != nil)
        if !schema.related.isEmpty {
            o["relationships"] = .array(schema.related.enumerated().map { i, r in
                .object([
                    "id": .integer(Int64(i)), "name": .string(r.table), "relatedTableName": .string(r.table), "cardinality": .string("esriRelCardinalityOneToMany"),
                    "role": .string("esriRelRoleOrigin"), "keyField": .string(schema.globalIdField), "relatedKeyField": .string(r.key),
                    "mappingTable": .string(r.mapping),
                ])
            })
        }
        return o
    }

    /// A plain symbol for a geometry type, its colour picked from a fixed palette by position.
    static func defaultSymbol(geometryType: String?, index: Int) -> Symbol {
        // Okabe-Ito: distinguishable with the common colour-vision deficiencies.
        let palette: [RGBAColor] = [
            RGBAColor(red: 0, green: 114, blue: 178), RGBAColor(red: 213, green: 94, blue: 0),
            RGBAColor(red: 0, green: 158, blue: 115), RGBAColor(red: 204, green: 121, blue: 167),
            RGBAColor(red: 230, green: 159, blue: 0), RGBAColor(red: 86, green: 180, blue: 233),
            RGBAColor(red: 240, green: 228, blue: 66),
        ]
        let color = palette[index % palette.count]
        let outline = SimpleLineSymbol(color: RGBAColor(red: 51, green: 51, blue: 51), width: 0.75)
        let type = (geometryType ?? "").lowercased()
        if type.contains("point") {
            return .simpleMarker(SimpleMarkerSymbol(color: color, size: 7, outline: outline))
        }
        if type.contains("line") || type.contains("curve") {
            return .simpleLine(SimpleLineSymbol(color: color, width: 1.5))
        }
        var fill = color
        fill.alpha = 128
        return .simpleFill(SimpleFillSymbol(color: fill, outline: SimpleLineSymbol(color: color, width: 1)))
    }

    /// Why an ArcGIS label placement does not fit a layer's geometry (`along` on points), or nil.
    static func placementProblem(_ placement: String, geometryType: String?) -> String? {
        guard let type = geometryType?.lowercased() else { return nil }
        let kinds: [(prefix: String, family: String, words: String)] = [
            ("esriServerPointLabel", "point", "points: above, below, left, right, center and the corners"),
            ("esriServerLinePlacement", "line", "lines: along, above-along, below-along"),
            ("esriServerPolygonPlacement", "polygon", "polygons: horizontal"),
        ]
        guard let kind = kinds.first(where: { placement.hasPrefix($0.prefix) }), !type.contains(kind.family) else { return nil }
        let fitting = kinds.first { type.contains($0.family) }.map { "; for this layer use one for \($0.words)" } ?? ""
        let name = Project.labelPlacements.first { $0.value == placement }?.key ?? placement
        return "placement '\(name)' is for \(kind.family)s, and this layer has \(type) geometry\(fitting)"
    }
}
