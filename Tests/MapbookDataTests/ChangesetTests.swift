import Foundation
import MapbookData
import MapbookSupport
import MapbookTestSupport
import Testing

/// Changesets in SQLite's session format on a GeoPackage feature table (issue 19): recorded
/// from edits, applied elsewhere, read and written by Mergin Maps' geodiff.
@Suite struct ChangesetTests {
    static var pygeodiffRequired: ConditionTrait {
        let has = FileManager.default.isExecutableFile(atPath: ExternalTools.python)
            && (try? ExternalTools.run(ExternalTools.python, ["-c", "import pygeodiff"]))?.status == 0
        return .enabled(if: has || ExternalTools.isCI, "pygeodiff is missing from .venv; run tools/setup")
    }

    /// A GeoPackage of three trees, copied to `names` in `dir`.
    func trees(_ dir: String, _ names: [String]) throws {
        try writeFile(dir + "/trees.geojson", #"""
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{"common":"oak","dbh":10.5},"geometry":{"type":"Point","coordinates":[-122.60,45.50]}},
            {"type":"Feature","properties":{"common":"elm","dbh":7.0},"geometry":{"type":"Point","coordinates":[-122.61,45.51]}},
            {"type":"Feature","properties":{"common":"ash","dbh":3.2},"geometry":{"type":"Point","coordinates":[-122.62,45.52]}}]}
            """#)
        let writer = try GeoPackageWriter(path: dir + "/made.gpkg", crs: .webMercator, timestamp: 1_700_000_000)
        _ = try LayerImporter(target: .webMercator).run(try GeoJSONReader(path: dir + "/trees.geojson"), table: "trees", writer: writer, identifier: "trees", description: "test")
        try writer.close()
        for name in names { try FileManager.default.copyItem(atPath: dir + "/made.gpkg", toPath: dir + "/" + name) }
    }

    func open(_ path: String) throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(writablePath: path, create: false)
        try GeoPackageFunctions.register(on: database)
        return database
    }

    func rows(_ path: String) throws -> [[SQLiteValue]] {
        try SQLiteDatabase(readOnlyPath: path).query("SELECT fid, common, dbh, hex(geom) FROM trees ORDER BY fid")
    }

    /// An insert, an update of one column and a delete, as a device makes them.
    func edit(_ database: SQLiteDatabase) throws {
        let point = GeoPackageBinary.encode(Geometry(.point(Position(x: -13_650_000, y: 5_700_000)), hasZ: false, hasM: false), srsID: 3857)
        try database.query("INSERT INTO trees (geom, common, dbh) VALUES (?, 'maple', 4.4)", [.blob(point)])
        try database.execute("UPDATE trees SET dbh = 11.0 WHERE fid = 1")
        try database.execute("DELETE FROM trees WHERE fid = 3")
    }

    @Test func editsRecordedOnOneCopyApplyToAnother() throws {
        try withTemporaryDirectory { dir in
            try trees(dir, ["device.gpkg", "server.gpkg"])
            let device = try open(dir + "/device.gpkg")
            let session = try SQLiteSession(device, tables: ["trees"])
            try edit(device)
            let changeset = try session.changeset()
            #expect(!changeset.isEmpty)
            let server = try open(dir + "/server.gpkg")
            var conflicts: [SQLiteChangesetConflict] = []
            try server.apply(changeset: changeset) { conflict, _ in conflicts.append(conflict); return .abort }
            #expect(conflicts.isEmpty)
            #expect(try rows(dir + "/server.gpkg") == rows(dir + "/device.gpkg"))
            // The R-tree followed: the new tree is found by its box, the deleted one is not.
            #expect(try server.scalar("SELECT count(*) FROM rtree_trees_geom")?.int64 == 3)
            #expect(try server.scalar("SELECT count(*) FROM rtree_trees_geom WHERE id = 3")?.int64 == 0)

            // Applied again, every change conflicts: the insert's key is there, the update's
            // old value is gone, the deleted row is missing. Aborting leaves the file as it was.
            let before = try rows(dir + "/server.gpkg")
            conflicts = []
            #expect(throws: SQLiteError.self) {
                try server.apply(changeset: changeset) { conflict, _ in conflicts.append(conflict); return .abort }
            }
            #expect(conflicts.count == 1, "\(conflicts)")
            #expect(try rows(dir + "/server.gpkg") == before)
            conflicts = []
            try server.apply(changeset: changeset) { conflict, _ in conflicts.append(conflict); return .omit }
            #expect(Set(conflicts) == [.conflict, .data, .notFound], "\(conflicts)")
        }
    }

    /// geodiff lists the changes of our changeset and applies it; we apply the changeset
    /// geodiff makes from the same edits. Both end with the device's rows.
    @Test(pygeodiffRequired)
    func geodiffReadsOurChangesetsAndWeReadItsOwn() throws {
        try withTemporaryDirectory { dir in
            try trees(dir, ["base.gpkg", "device.gpkg", "theirs.gpkg", "ours.gpkg"])
            let device = try open(dir + "/device.gpkg")
            let session = try SQLiteSession(device, tables: ["trees"])
            try edit(device)
            try writeFile(dir + "/ours.diff", try session.changeset())
            try device.close()
            let script = """
                import json, sys, pygeodiff
                d, g = sys.argv[1], pygeodiff.GeoDiff()
                g.list_changes_summary(d + "/ours.diff", d + "/summary.json")
                g.apply_changeset(d + "/theirs.gpkg", d + "/ours.diff")
                g.create_changeset(d + "/base.gpkg", d + "/device.gpkg", d + "/theirs.diff")
                print(json.dumps(json.load(open(d + "/summary.json"))))
                """
            let output = try ExternalTools.runPython(script, [dir])
            let summary = try #require(try JSONParser.parse(Array(output.utf8)).objectValue?.array("geodiff_summary")?.first?.objectValue)
            #expect(summary.string("table") == "trees")
            #expect(summary.int("insert") == 1 && summary.int("update") == 1 && summary.int("delete") == 1, "\(summary)")
            #expect(try rows(dir + "/theirs.gpkg") == rows(dir + "/device.gpkg"))
            let theirs = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/theirs.diff")))
            try open(dir + "/ours.gpkg").apply(changeset: theirs) { _, _ in .abort }
            #expect(try rows(dir + "/ours.gpkg") == rows(dir + "/device.gpkg"))
        }
    }
}
