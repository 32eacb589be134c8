import MapbookData
import MapbookPackage
import MapbookSupport

/// An editable package's authoritative copy as an ArcGIS feature service (issue 33,
/// docs/PORTAL.md "Feature services"): the layers and tables its maps show (editable ones,
/// and the others to read only) and its other editable tables, numbered, described as
/// the ArcGIS REST API's `FeatureServer` and `FeatureServer/<n>` resources describe them, and
/// queried (`FeatureService+Query`). Read-only: edits go through `AuthoritativeCopy.applyEdits`,
/// which records them with a generation as a sync does.
///
/// The layers' titles, numbers and drawing info come from the package's maps, recorded in the
/// copy when it is made (`recordLayers`): the copy is all a portal process needs to answer.
public final class FeatureService {
    public struct Layer {
        public let id: Int
        public let features: FeatureTable
        /// The edit schema of an editable layer; nil for one the service only serves to read.
        public let schema: EditSchema?
        public let title: String
        /// The renderer and labels of the first map layer showing the table.
        public let drawingInfo: JSONValue?
        /// A table without geometry (a tree's inspections).
        public var isTable: Bool { features.geometryColumn == nil }
        public var isEditable: Bool { schema != nil }
        public var name: String { features.name }
    }

    /// One relationship between a layer and a related table (`EditSchema.Relationship`).
    public struct Relationship {
        public let id: Int
        public let origin: Int
        public let destination: Int
        /// The origin's column the destination's `key` holds: its globalid.
        public let originKey: String
        public let destinationKey: String
    }

    public let layers: [Layer]
    public let relationships: [Relationship]
    /// The most features one query answers with (`resultRecordCount` is clamped to it).
    public let maxRecordCount: Int
    let database: SQLiteDatabase

    /// The table of the copy that names the service's layers.
    static let layersTable = "mapbook_service_layers"
    /// ArcGIS's version of the REST API these resources follow.
    static let currentVersion = JSONValue.number(11.1)
    public static let defaultMaxRecordCount = 2000

    /// Ends whatever reads the last request left open (a cursor not read to its end), so that
    /// the service waits idle for the next holding nothing of it.
    public func settle() {
        database.resetStatements()
    }

    /// Opens the copy at `path` read-only.
    public init(path: String, maxRecordCount: Int = defaultMaxRecordCount) throws {
        database = try SQLiteDatabase(readOnlyPath: path)
        try database.execute("PRAGMA busy_timeout = 10000")
        self.maxRecordCount = maxRecordCount
        var recorded: [String: (id: Int, title: String, drawingInfo: JSONValue?)] = [:]
        if try database.tableExists(Self.layersTable) {
            for row in try database.query("SELECT table_name, layer_id, title, drawing_info FROM \(Self.layersTable)") {
                guard let table = row[0].text, let id = row[1].int64 else { continue }
                recorded[table] = (Int(id), row[2].text ?? table, try row[3].text.map { try JSONParser.parse($0) })
            }
        }
        var layers: [Layer] = []
        var next = (recorded.values.map(\.id).max() ?? -1) + 1
        let editable = try EditSchema.editableTables(database)
        for table in Set(editable + recorded.keys).sorted() {
            let schema = try EditSchema.read(database, table: table)
            guard schema?.attachmentsOf == nil else { continue }
            let known = recorded[table]
            let id = known?.id ?? next
            if known == nil { next += 1 }
            layers.append(Layer(id: id, features: try FeatureTable(database: database, table: table), schema: schema, title: known?.title ?? table, drawingInfo: known?.drawingInfo))
        }
        self.layers = layers.sorted { $0.id < $1.id }
        var relationships: [Relationship] = []
        for layer in self.layers {
            guard let schema = layer.schema else { continue }
            for related in schema.related {
                guard let destination = self.layers.first(where: { $0.name.lowercased() == related.table.lowercased() }) else { continue }
                relationships.append(Relationship(id: relationships.count, origin: layer.id, destination: destination.id, originKey: schema.globalIdField, destinationKey: related.key))
            }
        }
        self.relationships = relationships
    }

    deinit { try? database.close() }

    /// The layer or table with this id.
    public func layer(_ id: Int) throws(FeatureServiceError) -> Layer {
        guard let layer = layers.first(where: { $0.id == id }) else {
            let ids = layers.map { String($0.id) }.joined(separator: ", ")
            throw FeatureServiceError(.noSuchLayer, "the service has no layer or table \(id); its layers are \(ids.isEmpty ? "none" : ids)")
        }
        return layer
    }

    /// The layer or table with the id `text` (a path component).
    public func layer(_ text: String) throws(FeatureServiceError) -> Layer {
        guard let id = Int(text) else { throw FeatureServiceError(.noSuchLayer, "'\(text)' is not a layer id (a whole number)") }
        return try layer(id)
    }

    // MARK: Recording the layers

    /// Records in the copy (`database`, being made from `package`) the service's layer
    /// numbers, titles and drawing info: the tables the package's maps show, in their order
    /// (those without an edit schema are served to read only), then the editable ones no map
    /// shows, by name; the title and drawing info of the first map layer showing each. A
    /// table recorded before keeps its number.
    static func recordLayers(of package: MobileMapPackage, in database: SQLiteDatabase, keeping earlier: [String: Int64] = [:]) throws {
        var shown: [(table: String, title: String, drawingInfo: JSONValue?)] = []
        for entry in package.mapEntries {
            guard let map = try? package.map(entry) else { continue }
            for layer in (map.map.operationalLayers ?? []).flatMap({ $0.flattened().map(\.layer) }) + (map.map.tables ?? []) {
                guard let table = layer.dataPath?.table, !shown.contains(where: { $0.table.lowercased() == table.lowercased() }) else { continue }
                shown.append((table, layer.title ?? table, layer.layerDefinition?.drawingInfo.map { .object($0.json) }))
            }
        }
        // A table keeps its number from version to version (`earlier`: those of the copy this
        // one replaces): clients keep layer URLs.
        let numbers = earlier.merging(try layerNumbers(in: database)) { _, own in own }
        try database.execute("DROP TABLE IF EXISTS \(layersTable); CREATE TABLE \(layersTable) (table_name TEXT PRIMARY KEY, layer_id INTEGER NOT NULL UNIQUE, title TEXT, drawing_info TEXT)")
        var next = (numbers.values.max() ?? -1) + 1
        // Every table the maps show (editable or only to read), then editable ones they do not.
        let present = try database.query("SELECT table_name FROM gpkg_contents WHERE data_type IN ('features', 'attributes')").compactMap { $0[0].text }
        let editable = try EditSchema.editableTables(database).filter { (try? EditSchema.read(database, table: $0))??.attachmentsOf == nil }
        let ordered = shown.compactMap { s in present.first { $0.lowercased() == s.table.lowercased() } } + editable.filter { t in !shown.contains { $0.table.lowercased() == t.lowercased() } }
        for table in ordered {
            let seen = shown.first { $0.table.lowercased() == table.lowercased() }
            let id = numbers[table.lowercased()] ?? next
            if numbers[table.lowercased()] == nil { next += 1 }
            try database.query(
                "INSERT INTO \(layersTable) (table_name, layer_id, title, drawing_info) VALUES (?, ?, ?, ?)",
                [.text(table), .integer(id), .text(seen?.title ?? table), seen?.drawingInfo.map { .text(JSONWriter.string($0, style: .compact)) } ?? .null])
        }
    }

    /// The layer numbers recorded in a copy, by table in lower case.
    static func layerNumbers(in database: SQLiteDatabase) throws -> [String: Int64] {
        guard try database.tableExists(layersTable) else { return [:] }
        var numbers: [String: Int64] = [:]
        for row in try database.query("SELECT table_name, layer_id FROM \(layersTable)") {
            if let table = row[0].text?.lowercased(), let id = row[1].int64 { numbers[table] = id }
        }
        return numbers
    }

    // MARK: Descriptions

    /// The `FeatureServer` resource.
    public func serviceJSON(description: String = "") throws -> JSONValue {
        let first = layers.first { !$0.isTable }
        let crs = first?.features.crs
        var extent: JSONValue = .null
        if let first, let box = try first.features.extent() { extent = Self.envelopeJSON(box, crs) }
        var o = JSONObject()
        o["currentVersion"] = Self.currentVersion
        o["serviceDescription"] = .string(description)
        o["hasVersionedData"] = false
        o["supportsDisconnectedEditing"] = true
        o["hasStaticData"] = false
        o["maxRecordCount"] = .integer(Int64(maxRecordCount))
        o["supportedQueryFormats"] = .string(Self.queryFormats)
        o["capabilities"] = .string(Self.capabilities)
        o["description"] = .string(description)
        o["copyrightText"] = .string("")
        o["spatialReference"] = Self.spatialReferenceJSON(crs)
        o["initialExtent"] = extent
        o["fullExtent"] = extent
        o["allowGeometryUpdates"] = true
        o["units"] = .string(crs.map { $0.isWGS84 ? "esriDecimalDegrees" : "esriMeters" } ?? "esriMeters")
        o["syncEnabled"] = false
        o["supportsApplyEditsWithGlobalIds"] = true
        o["layers"] = .array(layers.filter { !$0.isTable }.map { layer in
            .object([
                "id": .integer(Int64(layer.id)), "name": .string(layer.title), "parentLayerId": -1, "defaultVisibility": true, "subLayerIds": .null,
                "minScale": 0, "maxScale": 0, "geometryType": .string(Self.geometryType(layer.features)),
            ])
        })
        o["tables"] = .array(layers.filter(\.isTable).map { .object(["id": .integer(Int64($0.id)), "name": .string($0.title)]) })
        o["relationships"] = .array(relationships.map { r in .object(["id": .integer(Int64(r.id)), "name": .string((try? layer(r.destination).title) ?? "")]) })
        return .object(o)
    }

    /// The `FeatureServer/<n>` resource of a layer or table.
    public func layerJSON(_ layer: Layer) throws -> JSONValue {
        let features = layer.features
        var o = JSONObject()
        o["currentVersion"] = Self.currentVersion
        o["id"] = .integer(Int64(layer.id))
        o["name"] = .string(layer.title)
        o["type"] = .string(layer.isTable ? "Table" : "Feature Layer")
        o["description"] = .string("")
        o["copyrightText"] = .string("")
        o["defaultVisibility"] = true
        o["minScale"] = 0
        o["maxScale"] = 0
        if !layer.isTable {
            o["geometryType"] = .string(Self.geometryType(features))
            o["sourceSpatialReference"] = Self.spatialReferenceJSON(features.crs)
            o["extent"] = try features.extent().map { Self.envelopeJSON($0, features.crs) } ?? .null
            o["drawingInfo"] = layer.drawingInfo ?? .null
            o["hasZ"] = .bool(features.hasZ)
            o["hasM"] = .bool(features.hasM)
            o["allowGeometryUpdates"] = true
        }
        o["hasAttachments"] = .bool(layer.schema?.attachments != nil)
        o["htmlPopupType"] = "esriServerHTMLPopupTypeNone"
        o["objectIdField"] = .string(features.idColumn)
        o["globalIdField"] = .string(layer.schema?.globalIdField ?? "")
        o["displayField"] = .string(features.fields.first { $0.type == .text && $0.name.lowercased() != layer.schema?.globalIdField.lowercased() }?.name ?? features.idColumn)
        o["typeIdField"] = .null
        o["fields"] = .array(Self.fieldsJSON(layer, names: nil))
        if let geometry = features.geometryColumn { o["geometryField"] = .object(["name": .string(geometry), "type": "esriFieldTypeGeometry"]) }
        o["indexes"] = .array([])
        o["types"] = .array([])
        o["templates"] = .array([])
        o["relationships"] = .array(relationships.compactMap { r in
            guard r.origin == layer.id || r.destination == layer.id else { return nil }
            let isOrigin = r.origin == layer.id
            let other = (try? self.layer(isOrigin ? r.destination : r.origin))?.title ?? ""
            return .object([
                "id": .integer(Int64(r.id)), "name": .string(other), "relatedTableId": .integer(Int64(isOrigin ? r.destination : r.origin)),
                "cardinality": "esriRelCardinalityOneToMany", "role": .string(isOrigin ? "esriRelRoleOrigin" : "esriRelRoleDestination"),
                "keyField": .string(isOrigin ? r.originKey : r.destinationKey), "composite": false,
            ])
        })
        o["capabilities"] = .string(layer.isEditable ? Self.capabilities : "Query")
        o["maxRecordCount"] = .integer(Int64(maxRecordCount))
        o["standardMaxRecordCount"] = .integer(Int64(maxRecordCount))
        o["supportedQueryFormats"] = .string(Self.queryFormats)
        o["supportsStatistics"] = false
        o["supportsAdvancedQueries"] = true
        o["useStandardizedQueries"] = true
        o["advancedQueryCapabilities"] = .object([
            "useStandardizedQueries": true, "supportsStatistics": false, "supportsOrderBy": true, "supportsDistinct": false, "supportsPagination": true,
            "supportsTrueCurve": false, "supportsReturningQueryExtent": true, "supportsQueryWithDistance": false, "supportsSqlExpression": false,
            "supportsQueryRelatedPagination": false, "supportsQueryWithResultType": false,
        ])
        if let tracking = layer.schema?.tracking {
            o["editFieldsInfo"] = .object([
                "creationDateField": .string(tracking.created), "creatorField": .string(tracking.creator),
                "editDateField": .string(tracking.edited), "editorField": .string(tracking.editor),
            ])
            o["dateFieldsTimeReference"] = .object(["timeZone": "UTC", "respectsDaylightSaving": false])
        }
        o["supportsApplyEditsWithGlobalIds"] = true
        o["supportsRollbackOnFailureParameter"] = true
        o["isDataVersioned"] = false
        return .object(o)
    }

    static let capabilities = "Create,Delete,Query,Update,Editing"
    static let queryFormats = "JSON, geoJSON"

    /// The layer's fields as the API describes them (`names`: only these, in the table's order).
    static func fieldsJSON(_ layer: Layer, names: Set<String>?) -> [JSONValue] {
        let features = layer.features
        var out: [JSONValue] = [.object([
            "name": .string(features.idColumn), "type": "esriFieldTypeOID", "alias": .string(features.idColumn), "sqlType": "sqlTypeOther",
            "nullable": false, "editable": false, "domain": .null, "defaultValue": .null,
        ])]
        for field in features.fields where names?.contains(field.name.lowercased()) ?? true {
            let rule = layer.schema?.rule(field.name)
            let isGlobalID = field.name.lowercased() == layer.schema?.globalIdField.lowercased()
            var f = JSONObject()
            f["name"] = .string(field.name)
            f["type"] = .string(isGlobalID ? "esriFieldTypeGlobalID" : field.type.esriFieldType)
            f["alias"] = .string(field.alias ?? field.name)
            f["sqlType"] = "sqlTypeOther"
            if isGlobalID { f["length"] = 38 }
            f["nullable"] = .bool(!(rule?.required ?? false) && !isGlobalID)
            f["editable"] = .bool(layer.schema?.isEditable(field.name) ?? false)
            f["domain"] = rule?.domain.map { .object(EditSchema.domainJSON($0, name: field.name)) } ?? .null
            f["defaultValue"] = rule?.defaultValue.map(EditSchema.jsonValue) ?? .null
            out.append(.object(f))
        }
        return out
    }

    /// `esriGeometryPoint` and the like, from the table's declared type.
    static func geometryType(_ features: FeatureTable) -> String {
        switch features.geometryType?.family {
        case .point?: return features.geometryType == .multiPoint ? "esriGeometryMultipoint" : "esriGeometryPoint"
        case .line?: return "esriGeometryPolyline"
        case .polygon?: return "esriGeometryPolygon"
        case nil: return "esriGeometryNull"
        }
    }

    /// A spatial reference as the API writes it: Web Mercator as `102100` with its latest
    /// EPSG code, others by EPSG code, else by WKT.
    public static func spatialReferenceJSON(_ crs: CoordinateReferenceSystem?) -> JSONValue {
        guard let crs else { return .null }
        if crs.isWebMercator { return .object(["wkid": 102100, "latestWkid": 3857]) }
        if let epsg = crs.epsg { return .object(["wkid": .integer(Int64(epsg)), "latestWkid": .integer(Int64(epsg))]) }
        return .object(["wkt": .string(crs.wkt ?? "")])
    }

    static func envelopeJSON(_ box: BoundingBox, _ crs: CoordinateReferenceSystem?) -> JSONValue {
        .object([
            "xmin": .double(box.minX), "ymin": .double(box.minY), "xmax": .double(box.maxX), "ymax": .double(box.maxY),
            "spatialReference": spatialReferenceJSON(crs),
        ])
    }
}
