import Foundation
import MapbookData
import MapbookPackage
import MapbookPackager
import MapbookSupport
import MapbookTestSupport
import Testing

/// `edit:` on a source (issue 19): the layer's rules where other tools see them (GeoPackage's
/// schema extension, the web map's fields), a globalid on every feature, and the rules
/// refused when they do not fit the layer.
@Suite struct EditableLayerTests {
    func buildTrees(_ dir: String) throws -> MobileMapPackage {
        _ = try Packager.build(try Project.load(path: try PortlandSample.write(in: dir)), output: dir + "/out.mmpk", timestamp: 1_700_000_000)
        return try MobileMapPackage(path: dir + "/out.mmpk")
    }

    @Test(Fixtures.required, ExternalTools.validatorRequired, ExternalTools.ogrinfoRequired)
    func portlandTreesAreEditableWhereGDALAndArcGISLook() throws {
        try withTemporaryDirectory { dir in
            let package = try buildTrees(dir)
            let entry = try #require(package.archive.entries.first { $0.name.hasSuffix("/data.gpkg") })
            try writeFile(dir + "/data.gpkg", try package.archive.read(entry))
            #expect(try ExternalTools.validateGeoPackage(dir + "/data.gpkg") == "")
            let database = try SQLiteDatabase(readOnlyPath: dir + "/data.gpkg")
            // The schema as the project gave it, codes in the fields' types.
            let schema = try #require(try EditSchema.read(database, table: "trees"))
            #expect(schema.rule("condition") == EditSchema.Rule(
                field: "condition", domain: .codedValues(["Good", "Fair", "Poor", "Dead"].map { .init(code: .text($0), name: $0) }), required: true, defaultValue: .text("Good")))
            #expect(schema.rule("dbh")?.domain == .range(min: 0, max: 300))
            #expect(schema.rule("common")?.required == true && schema.rule("objectid")?.readOnly == true)
            #expect(schema.tracking == EditSchema.Tracking() && schema.conflicts == .lastSyncWins)
            #expect(try EditSchema.read(database, table: "neighborhoods") == nil)
            // Every tree has its own globalid, in ArcGIS's braced form.
            let ids = try database.query("SELECT globalid FROM trees").compactMap { $0[0].text }
            #expect(ids.count == 676 && Set(ids).count == 676)
            #expect(ids.allSatisfy { $0.count == 38 && $0.hasPrefix("{") && $0.hasSuffix("}") && Array($0)[15] == "8" })
            // GDAL reads the domains from the schema extension.
            let (_, info) = try ExternalTools.run(ExternalTools.ogrinfo, ["-ro", "-so", dir + "/data.gpkg", "trees"])
            #expect(info.contains("condition: String (0.0), domain name=trees_condition_domain"), "\(info)")
            #expect(info.contains("globalid: String (0.0) UNIQUE"), "\(info)")
            let codes = try database.query("SELECT value, description FROM gpkg_data_column_constraints WHERE constraint_name = 'trees_condition_domain' AND constraint_type = 'enum' ORDER BY value")
            #expect(codes.map { $0[0].text ?? "" } == ["Dead", "Fair", "Good", "Poor"])
            // The web map's layer definition, as ArcGIS writes a feature layer's.
            let map = try package.map(try #require(package.mapEntries.first))
            let layer = try #require(map.map.operationalLayers?.first { $0.path?.hasSuffix("table=trees") == true })
            let definition = try #require(layer.layerDefinition?.original)
            #expect(definition.string("globalIdField") == "globalid" && definition.string("capabilities")?.contains("Update") == true)
            #expect(definition.object("editFieldsInfo")?.string("editorField") == "last_edited_user")
            let fields = (definition.array("fields") ?? []).compactMap(\.objectValue)
            let condition = try #require(fields.first { $0.string("name") == "condition" })
            #expect(condition.object("domain")?.string("type") == "codedValue" && condition["nullable"] == .bool(false) && condition.string("defaultValue") == "Good")
            #expect(fields.first { $0.string("name") == "globalid" }?.string("type") == "esriFieldTypeGlobalID")
            #expect(fields.first { $0.string("name") == "objectid" }?["editable"] == .bool(false))
            #expect(layer.popupInfo?.fieldInfos?.first { $0.fieldName == "condition" }?.isEditable == true)
            // Inspections and attachments, related with the Related Tables Extension.
            let relations = try RelatedTables.relations(database)
            #expect(relations.map { "\($0.base) \($0.related) \($0.name) \($0.mapping)" } == [
                "trees inspections attributes trees_inspections", "trees trees_attachments media trees_attachments_mapping",
            ])
            #expect(definition["hasAttachments"] == .bool(true) && definition.array("relationships")?.count == 1)
            #expect(layer.popupInfo?.showAttachments == true)
            #expect(try EditSchema.read(database, table: "trees_attachments")?.attachmentsOf == "trees")
            #expect(try EditSchema.read(database, table: "trees")?.related == [.init(table: "inspections", key: "tree_globalid", mapping: "trees_inspections")])
            #expect(map.map.tables?.contains { $0.path?.hasSuffix("table=inspections") == true } == true)
            // The same build gives the same ids.
            try FileManager.default.createDirectory(atPath: dir + "/again", withIntermediateDirectories: true)
            let again = try buildTrees(dir + "/again")
            let againEntry = try #require(again.archive.entries.first { $0.name.hasSuffix("/data.gpkg") })
            try writeFile(dir + "/again.gpkg", try again.archive.read(againEntry))
            let againIDs = try SQLiteDatabase(readOnlyPath: dir + "/again.gpkg").query("SELECT globalid FROM trees").compactMap { $0[0].text }
            #expect(againIDs == ids)
        }
    }

    /// Rules that do not fit the layer stop the build, naming the field, and nothing is written.
    @Test func rulesThatDoNotFitTheLayerAreRefused() throws {
        try withTemporaryDirectory { dir in
            try writeFile(dir + "/trees.geojson", #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"kind":"oak","height":12,"status":1},"geometry":{"type":"Point","coordinates":[-122.6,45.5]}}]}"#)
            try writeFile(dir + "/notes.csv", "tree,text\n")
            func refusal(_ edit: String) -> ProjectError? {
                projectRefusal {
                    try writeFile(dir + "/project.yaml", """
                        title: Edits
                        sources:
                          trees: { path: trees.geojson, edit: \(edit) }
                          notes: { path: notes.csv, geometry: none }
                        maps:
                          - name: Trees
                            layers: [trees]
                        """)
                    _ = try Packager.build(try Project.load(path: dir + "/project.yaml"), output: dir + "/e.mmpk", timestamp: 1_700_000_000)
                }
            }
            let missing = refusal("{ fields: { Kind: { required: true } } }")
            #expect(missing?.kind == .noSuchColumn && missing?.message.contains("did you mean 'kind'") == true, "\(String(describing: missing))")
            let codes = refusal("{ fields: { status: { domain: { A: Active, R: Retired } } } }")
            #expect(codes?.kind == .invalidValue && codes?.message.contains("'A' is not a value of 'status', a integer field") == true, "\(String(describing: codes))")
            let outside = refusal("{ fields: { kind: { domain: [oak, elm], default: ash } } }")
            #expect(outside?.kind == .invalidValue && outside?.message.contains("ash is not one of its codes") == true, "\(String(describing: outside))")
            let range = refusal("{ fields: { kind: { range: [0, 10] } } }")
            #expect(range?.kind == .invalidValue, "\(String(describing: range))")
            let both = refusal("{ fields: { height: { domain: [1, 2], range: [0, 10] } } }")
            #expect(both?.kind == .conflictingKeys, "\(String(describing: both))")
            let policy = refusal("{ conflicts: first_wins }")
            #expect(policy?.kind == .invalidValue, "\(String(describing: policy))")
            // Related records go in an editable source, by a key column it has.
            let notEditable = refusal("{ related: { notes: { key: tree } } }")
            #expect(notEditable?.kind == .invalidValue && notEditable?.message.contains("'notes' is not an editable source") == true, "\(String(describing: notEditable))")
            let size = refusal("{ attachments: { max_size_mb: 0 } }")
            #expect(size?.kind == .invalidValue, "\(String(describing: size))")
            #expect(!FileManager.default.fileExists(atPath: dir + "/e.mmpk"))
            // Integer codes on an integer field are fine.
            #expect(refusal("{ fields: { status: { domain: { 1: Active, 2: Retired }, default: 1 } }, tracking: true }") == nil)
        }
    }

    /// The mapping tables follow the key whoever writes (plain SQL here, as GDAL or QGIS would):
    /// a new inspection is mapped to its tree, a renumbered tree keeps its inspections, a
    /// deleted tree loses its mapping rows.
    @Test(Fixtures.required)
    func relatedRecordsAreMappedByTheirKeyWhoeverWrites() throws {
        try withTemporaryDirectory { dir in
            let package = try buildTrees(dir)
            let entry = try #require(package.archive.entries.first { $0.name.hasSuffix("/data.gpkg") })
            try writeFile(dir + "/data.gpkg", try package.archive.read(entry))
            let db = try SQLiteDatabase(writablePath: dir + "/data.gpkg", create: false)
            try GeoPackageFunctions.register(on: db)
            let tree5 = try #require(try db.scalar("SELECT globalid FROM trees WHERE fid = 5")?.text)
            try db.query("INSERT INTO inspections (tree_globalid, inspected, inspector, result, globalid) VALUES (?, '2026-11-26', 'ana', 'Healthy', '{I1}')", [.text(tree5)])
            try db.query("INSERT INTO trees_attachments (data, content_type, globalid, rel_globalid, att_name, data_size, sha256) VALUES (x'00', 'image/jpeg', '{A1}', ?, 'bark.jpg', 1, '')", [.text(tree5)])
            #expect(try db.query("SELECT base_id FROM trees_inspections").map { $0[0].int64 } == [5])
            #expect(try db.query("SELECT base_id FROM trees_attachments_mapping").map { $0[0].int64 } == [5])
            try db.execute("UPDATE trees SET fid = 9000 WHERE fid = 5")
            #expect(try db.query("SELECT base_id FROM trees_inspections").map { $0[0].int64 } == [9000])
            try db.execute("DELETE FROM trees WHERE fid = 9000")
            #expect(try db.scalar("SELECT count(*) FROM trees_inspections")?.int64 == 0)
            #expect(try db.scalar("SELECT count(*) FROM trees_attachments_mapping")?.int64 == 0)
            try db.close()
            #expect(try ExternalTools.validateGeoPackage(dir + "/data.gpkg") == "" || !ExternalTools.hasValidator)
        }
    }
}
