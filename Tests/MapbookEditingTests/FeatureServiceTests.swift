import Foundation
import MapbookData
import MapbookEditing
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing

/// The portal's copy as a feature service (issue 33), without a portal in between: the
/// descriptions, every query parameter, hostile input, and online edits that devices receive
/// on their next sync and merge against by the layer's policy.
@Suite struct FeatureServiceTests {
    let sync = SyncTests()

    func service(_ w: SyncTests.World) throws -> FeatureService { try FeatureService(path: w.server.path, maxRecordCount: 2) }

    func query(_ service: FeatureService, _ parameters: [String: String], layer: Int = 0) throws -> JSONObject {
        // Through text, as a client reads it.
        switch try service.query(parameters, layer: try service.layer(layer)) {
        case .json(let json): return try JSONParser.parse(JSONWriter.string(json)).objectValue ?? [:]
        case .encoded(let bytes): return try JSONParser.parse(bytes).objectValue ?? [:]
        }
    }

    static func mercatorX(_ longitude: Double) -> Double { longitude * 20037508.342789244 / 180 }

    func ids(_ answer: JSONObject) -> [Int64] {
        (answer.array("features") ?? []).compactMap { $0.objectValue?.object("attributes")?["fid"]?.int64Value }
    }

    @Test func describesTheLayersWithDomainsIdsAndDrawingInfo() throws {
        try withTemporaryDirectory { dir in
            let w = try sync.world(dir, related: true)
            let service = try service(w)
            let root = try service.serviceJSON().objectValue ?? [:]
            #expect(root.array("layers")?.compactMap { $0.objectValue?.string("name") } == ["Street Trees"])
            #expect(root.array("tables")?.compactMap { $0.objectValue?.string("name") } == ["inspections"])
            #expect(root.string("capabilities")?.contains("Update") == true)
            let trees = try service.layerJSON(try service.layer(0)).objectValue ?? [:]
            #expect(trees.string("type") == "Feature Layer" && trees.string("geometryType") == "esriGeometryPoint")
            #expect(trees.string("objectIdField") == "fid" && trees.string("globalIdField") == "globalid")
            #expect(trees["hasAttachments"] == true)
            let fields = trees.array("fields")?.compactMap(\.objectValue) ?? []
            let condition = fields.first { $0.string("name") == "condition" }
            #expect(condition?.object("domain")?.string("type") == "codedValue")
            #expect(condition?.object("domain")?.array("codedValues")?.count == 4)
            #expect(condition?["nullable"] == false && condition?["defaultValue"] == "Good")
            #expect(fields.first { $0.string("name") == "dbh" }?.object("domain")?.array("range") == [0, 300])
            #expect(fields.first { $0.string("name") == "globalid" }?.string("type") == "esriFieldTypeGlobalID")
            #expect(fields.first { $0.string("name") == "last_edited_user" }?["editable"] == false)
            #expect(trees.object("drawingInfo")?.object("renderer") != nil, "the map's renderer")
            #expect(trees.object("extent")?["xmin"]?.doubleValue.map { abs($0 - Self.mercatorX(-122.62)) < 0.01 } == true, "in the layer's Web Mercator")
            #expect(trees.object("editFieldsInfo")?.string("editorField") == "last_edited_user")
            let relationship = trees.array("relationships")?.first?.objectValue
            #expect(relationship?.string("role") == "esriRelRoleOrigin" && relationship?["relatedTableId"] == 1 && relationship?.string("keyField") == "globalid")
            let inspections = try service.layerJSON(try service.layer(1)).objectValue ?? [:]
            #expect(inspections.string("type") == "Table")
            #expect(inspections.array("relationships")?.first?.objectValue?.string("keyField") == "tree_globalid")
            #expect(throws: FeatureServiceError.self) { try service.layer(7) }
        }
    }

    @Test func queriesByWhereIdsPlaceOrderAndPage() throws {
        try withTemporaryDirectory { dir in
            let w = try sync.world(dir)
            let service = try service(w)
            // where, bound: 'Fair' and 'Poor' trees; outFields checked and spelled as the table does.
            let fair = try query(service, ["where": "condition IN ('Fair', 'Poor')", "outFields": "COMMON,condition", "orderByFields": "dbh DESC"])
            #expect(ids(fair) == [2, 3])
            #expect(fair.array("features")?.first?.objectValue?.object("attributes")?.string("common") == "elm")
            #expect(fair.array("fields")?.compactMap { $0.objectValue?.string("name") } == ["fid", "common", "condition"])
            // A page of two (the service's maximum here) of three: the limit says so.
            let page = try query(service, ["where": "1=1", "orderByFields": "fid"])
            #expect(ids(page) == [1, 2] && page["exceededTransferLimit"] == true)
            let next = try query(service, ["where": "1=1", "orderByFields": "fid", "resultOffset": "2", "resultRecordCount": "50"])
            #expect(ids(next) == [3] && next["exceededTransferLimit"] == nil)
            #expect(ids(try query(service, ["objectIds": "3,1", "orderByFields": "fid"])) == [1, 3])
            // An envelope around the second tree in WGS84 (inSR), found in the layer's Web
            // Mercator and answered in WGS84 (outSR).
            let near = try query(service, ["geometry": "-122.6101,45.5099,-122.6099,45.5101", "inSR": "4326", "outSR": "4326"])
            #expect(ids(near) == [2])
            let point = near.array("features")?.first?.objectValue?.object("geometry")
            #expect(point?["x"]?.doubleValue.map { abs($0 - -122.61) < 1e-9 } == true, "projected to outSR")
            #expect(near.object("spatialReference")?["wkid"] == 4326)
            #expect(try query(service, ["objectIds": "2"]).object("spatialReference")?["wkid"] == 102100, "the layer's, by default")
            // A polygon (a triangle that holds the first tree only) intersects.
            let triangle = #"{"rings":[[[-122.605,45.49],[-122.595,45.49],[-122.60,45.51],[-122.605,45.49]]],"spatialReference":{"wkid":4326}}"#
            #expect(ids(try query(service, ["geometry": triangle, "geometryType": "esriGeometryPolygon"])) == [1])
            // Counts, ids, extents.
            #expect(try query(service, ["where": "dbh > 5", "returnCountOnly": "true"])["count"] == 2)
            #expect(try query(service, ["returnIdsOnly": "true"]).array("objectIds") == [1, 2, 3])
            let extent = try query(service, ["returnExtentOnly": "true", "returnCountOnly": "true", "outSR": "4326"])
            #expect(extent["count"] == 3 && extent.object("extent")?["xmin"]?.doubleValue.map { abs($0 - -122.62) < 1e-9 } == true)
            // GeoJSON: WGS84, dates as Unix milliseconds.
            let geojson = try query(service, ["f": "geojson", "outFields": "*", "objectIds": "1"])
            let feature = geojson.array("features")?.first?.objectValue
            #expect(feature?["id"] == 1 && feature?.object("geometry")?.string("type") == "Point")
            #expect(feature?.object("properties")?.string("condition") == "Good")
        }
    }

    /// Classic injection payloads in each parameter that names SQL: refused with a 400 kind,
    /// or bound as a value that matches nothing; the table is unchanged either way.
    @Test func hostileParametersAreRefusedOrBound() throws {
        try withTemporaryDirectory { dir in
            let w = try sync.world(dir)
            let service = try service(w)
            let before = try sync.trees(w.server.path)
            let payloads = [
                "1=1; DROP TABLE trees", "1=1 --", "common = 'x' OR 1=1 /*", "common = (SELECT name FROM sqlite_master)", "load_extension('x')",
                "fid = 1 UNION SELECT * FROM trees", "common = 'a'' OR ''1''=''1'", "\"trees\".fid = 1", "randomblob(1000000000) > 0",
            ]
            for payload in payloads {
                do {
                    let answer = try query(service, ["where": payload])
                    #expect(ids(answer).isEmpty, "'\(payload)' matched features")
                } catch let error as FeatureServiceError {
                    #expect(error.kind == .badWhere && error.status == 400, "\(payload): \(error)")
                }
            }
            for (parameter, payload) in [("outFields", "fid; DROP TABLE trees"), ("outFields", "*, (SELECT 1)"), ("orderByFields", "fid; DROP TABLE trees"), ("orderByFields", "fid DESC, 1/0")] {
                #expect(throws: FeatureServiceError.self, "\(parameter)=\(payload)") { try query(service, [parameter: payload]) }
            }
            for (parameter, payload) in [
                ("geometry", "{\"x\": 1"), ("geometry", "{\"paths\": [[[0, 0], [1, 1]]]}"), ("geometry", "1,2,3"), ("inSR", "999999"), ("outSR", "bogus"),
                ("resultRecordCount", "-1"), ("objectIds", "1,two"), ("spatialRel", "esriSpatialRelTouches"), ("outStatistics", "[{}]"), ("f", "kml"),
            ] {
                var parameters = [parameter: payload]
                if parameter == "geometry", payload.contains("paths") { parameters["geometryType"] = "esriGeometryPolygon" }
                if parameter == "inSR" || parameter == "spatialRel" { parameters["geometry"] = "0,0,1,1" }
                do {
                    _ = try query(service, parameters)
                    Issue.record("\(parameter)=\(payload) was accepted")
                } catch let error as FeatureServiceError {
                    #expect(error.status == 400, "\(parameter)=\(payload): \(error)")
                }
            }
            #expect(try sync.trees(w.server.path) == before)
        }
    }

    @Test func onlineEditsAreValidatedPerEditAndRolledBackWhole() throws {
        try withTemporaryDirectory { dir in
            let w = try sync.world(dir)
            let before = try sync.trees(w.server.path)
            let bad = FeatureEdits(
                adds: [.init(attributes: ["common": "fir", "condition": "Splendid"], geometry: ["x": -122.6, "y": 45.5])],
                updates: [.init(attributes: ["fid": 2, "dbh": 12.5], geometry: nil), .init(attributes: ["fid": 99, "dbh": 1], geometry: nil)],
                deletes: [.objectId(3)])
            let refused = try w.server.applyEdits(bad, layer: "trees", user: "ana", now: 1_800_000_000)
            #expect(refused.generation == nil)
            #expect(refused.adds.first?.failure?.code == .invalidValue, "outside the domain")
            #expect(refused.updates.map { $0.failure?.code } == [.rolledBack, .missing])
            #expect(refused.deletes.first?.failure?.code == .rolledBack)
            #expect(try sync.trees(w.server.path) == before, "rollbackOnFailure left everything as it was")
            // Without rollback, the good edits go in with one generation.
            var partial = bad
            partial.rollbackOnFailure = false
            let applied = try w.server.applyEdits(partial, layer: "trees", user: "ana", now: 1_800_000_000)
            #expect(applied.adds.first?.success == false && applied.updates.map(\.success) == [true, false] && applied.deletes.first?.success == true)
            let generation = try w.server.generation()
            #expect(applied.generation == 1 && generation == 1)
            let after = try sync.trees(w.server.path)
            #expect(after.count == 2 && after.values.first { $0[1] == "integer(2)" }?[3] == "real(12.5)")
            #expect(after.values.first { $0[1] == "integer(2)" }?[5] == #"text("ana")"#, "edit tracking says who")
            // A geometry in WGS84, added to the Web Mercator layer, is projected; the kept
            // globalid sent is passed over.
            let added = try w.server.applyEdits(
                FeatureEdits(adds: [.init(attributes: ["common": "yew", "globalid": "{00000000-0000-4000-8000-000000000000}"], geometry: ["x": -122.63, "y": 45.5, "spatialReference": ["wkid": 4326]])]),
                layer: "trees", user: "ben", now: 1_800_000_100)
            let fid = try #require(added.adds.first?.objectId)
            let service = try FeatureService(path: w.server.path)
            let yew = try query(service, ["objectIds": String(fid), "outFields": "*", "outSR": "4326"]).array("features")?.first?.objectValue
            #expect(yew?.object("geometry")?["x"]?.doubleValue.map { abs($0 - -122.63) < 1e-9 } == true)
            #expect(yew?.object("attributes")?.string("condition") == "Good", "the default")
            #expect(yew?.object("attributes")?.string("globalid") != "{00000000-0000-4000-8000-000000000000}", "without useGlobalIds the service makes the globalid")
            // With useGlobalIds an add keeps its globalid, and one already used is refused.
            let given = FeatureEdits(
                adds: [.init(attributes: ["common": "fir", "globalid": "{00000000-0000-4000-8000-00000000000A}"], geometry: ["x": -122.6, "y": 45.5, "spatialReference": ["wkid": 4326]])],
                useGlobalIds: true)
            #expect(try w.server.applyEdits(given, layer: "trees", user: "ben", now: 1_800_000_200).adds.first?.globalId == "{00000000-0000-4000-8000-00000000000A}")
            let again = try w.server.applyEdits(given, layer: "trees", user: "ben", now: 1_800_000_300)
            #expect(again.adds.first?.failure?.code == .invalidValue && again.generation == nil)
        }
    }

    /// One truth: an online edit reaches a device on its next sync; a device's offline edit of
    /// the same feature merges against it by the layer's policy and is reported.
    @Test(arguments: [nil, "manual"]) func onlineAndOfflineEditsMeetInTheCopy(policy: String?) throws {
        try withTemporaryDirectory { dir in
            let w = try sync.world(dir, conflicts: policy)
            _ = try w.a.update(layer: "trees", fid: 1, values: [("condition", "Dead")], user: "ana", now: 1_800_000_000)
            let online = try w.server.applyEdits(
                FeatureEdits(updates: [.init(attributes: ["fid": 1, "condition": "Poor"], geometry: nil)], deletes: [.objectId(3)]), layer: "trees", user: "office", now: 1_800_000_050)
            #expect(online.updates.first?.success == true)
            let response = try sync.sync(w.a, w.server, user: "ana")
            #expect(response.conflicts.map { "\($0.column) \($0.theirs) \($0.ours) \($0.outcome.rawValue)" } == [#"condition text("Poor") text("Dead") "# + (policy == nil ? "ours" : "manual")])
            let device = try sync.trees(w.a.dataPath)
            #expect(device.values.first { $0[1] == "integer(1)" }?[4] == (policy == nil ? #"text("Dead")"# : #"text("Poor")"#))
            #expect(device.count == 2, "the online delete reached the device")
            // The device's own edit shows online.
            _ = try w.b.update(layer: "trees", fid: 2, values: [("dbh", "44")], user: "ben", now: 1_800_000_100)
            try sync.sync(w.b, w.server, user: "ben")
            let service = try FeatureService(path: w.server.path)
            #expect(try query(service, ["where": "dbh = 44"]).array("features")?.count == 1)
        }
    }

    /// queryRelatedRecords both ways, and attachments added and deleted online: listed, read
    /// back, logged with generations, and received by a device's next sync.
    @Test func relatedRecordsAndAttachmentsOnline() throws {
        try withTemporaryDirectory { dir in
            let w = try sync.world(dir, related: true)
            _ = try w.a.relate(layer: "trees", fid: 1, related: "inspections", values: [("result", "Prune")], user: "ana", now: 1_800_000_000)
            _ = try w.a.relate(layer: "trees", fid: 1, related: "inspections", values: [("result", "Healthy")], user: "ana", now: 1_800_000_001)
            try sync.sync(w.a, w.server, user: "ana")
            let service = try FeatureService(path: w.server.path)
            let trees = try service.layer(0), inspections = try service.layer(1)
            let related = try service.relatedRecords(["objectIds": "1,2", "relationshipId": "0", "outFields": "result"], layer: trees).objectValue ?? [:]
            let groups = related.array("relatedRecordGroups")?.compactMap(\.objectValue) ?? []
            #expect(groups.count == 1 && groups[0]["objectId"] == 1, "tree 2 has no inspections: no group")
            #expect(Set(groups[0].array("relatedRecords")?.compactMap { $0.objectValue?.object("attributes")?.string("result") } ?? []) == ["Prune", "Healthy"])
            let filtered = try service.relatedRecords(["objectIds": "1", "relationshipId": "0", "definitionExpression": "result = 'Prune'"], layer: trees).objectValue
            #expect(filtered?.array("relatedRecordGroups")?.first?.objectValue?.array("relatedRecords")?.count == 1)
            let back = try service.relatedRecords(["objectIds": "1", "relationshipId": "0", "outFields": "common", "outSR": "4326"], layer: inspections).objectValue
            let tree = back?.array("relatedRecordGroups")?.first?.objectValue?.array("relatedRecords")?.first?.objectValue
            #expect(tree?.object("attributes")?.string("common") == "oak" && tree?.object("geometry")?["x"]?.doubleValue.map { abs($0 - -122.60) < 1e-9 } == true)
            #expect(throws: FeatureServiceError.self) { try service.relatedRecords(["objectIds": "1", "relationshipId": "9"], layer: trees) }

            // An attachment added online: listed, read, logged; a device receives its bytes.
            let photo = dir + "/upload.jpg"
            let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            try writeFile(photo, bytes)
            let generation = try w.server.generation()
            let added = try w.server.addAttachment(layer: "trees", featureId: 2, file: photo, name: "bark.jpg", contentType: "image/jpeg", user: "office", now: 1_800_000_100)
            #expect(added.result.success && added.generation == generation + 1)
            let reread = try FeatureService(path: w.server.path)
            let infos = try reread.attachmentInfos(layer: try reread.layer(0), featureId: 2).objectValue?.array("attachmentInfos") ?? []
            #expect(infos.count == 1 && infos[0].objectValue?.string("name") == "bark.jpg" && infos[0].objectValue?["size"] == .integer(Int64(bytes.count)))
            let read = try reread.attachments(layer: try reread.layer(0), featureId: 2, attachmentId: added.result.objectId, bytes: true)
            #expect(read.first?.bytes == bytes && read.first?.contentType == "image/jpeg")
            #expect(throws: FeatureServiceError.self) { try reread.attachmentInfos(layer: try reread.layer(0), featureId: 99) }
            try sync.sync(w.b, w.server, user: "ben")
            let onB = try SQLiteDatabase(readOnlyPath: w.b.dataPath).scalar("SELECT data FROM trees_attachments WHERE att_name = 'bark.jpg'")
            #expect(onB == .blob(bytes), "the device fetched the online attachment by its hash")
            // Deleted online: one result per id, an unknown id refused, the device loses it.
            let deleted = try w.server.deleteAttachments(layer: "trees", featureId: 2, ids: [added.result.objectId ?? 0, 999], user: "office", now: 1_800_000_200)
            #expect(deleted.map(\.success) == [true, false] && deleted[1].failure?.code == .missing)
            try sync.sync(w.b, w.server, user: "ben")
            #expect(try SQLiteDatabase(readOnlyPath: w.b.dataPath).scalar("SELECT count(*) FROM trees_attachments") == .integer(0))
        }
    }
}
