import Foundation
import MapbookData
import MapbookPackage
import MapbookPackager
import MapbookTestSupport
import Testing

/// `edit:` on a source (issue 19): the layer's rules where other tools see them (GeoPackage's
/// schema extension, the web map's fields), a globalid on every feature, and the rules
/// refused when they do not fit the layer.
@Suite struct EditableLayerTests {
    func buildTrees(_ dir: String) throws -> MobileMapPackage {
        let project = Fixtures.repositoryRoot.appendingPathComponent("samples/portland-trees/project.yaml").path
        try FileManager.default.createDirectory(atPath: dir + "/data", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: project, toPath: dir + "/project.yaml")
        for name in ["Neighborhood_Boundaries.geojson", "pdx_street_trees.csv"] {
            try FileManager.default.createSymbolicLink(atPath: dir + "/data/" + name, withDestinationPath: Fixtures.path("portland/" + name))
        }
        _ = try Packager.build(try Project.load(path: dir + "/project.yaml"), output: dir + "/out.mmpk", timestamp: 1_700_000_000)
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
            func refusal(_ edit: String) -> ProjectError? {
                projectRefusal {
                    try writeFile(dir + "/project.yaml", """
                        title: Edits
                        sources:
                          trees: { path: trees.geojson, edit: \(edit) }
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
            #expect(!FileManager.default.fileExists(atPath: dir + "/e.mmpk"))
            // Integer codes on an integer field are fine.
            #expect(refusal("{ fields: { status: { domain: { 1: Active, 2: Retired }, default: 1 } }, tracking: true }") == nil)
        }
    }
}
