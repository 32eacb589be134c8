import Foundation
import MapbookData
import MapbookEditing
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing

/// Republishing over field work (issue 35): a new version the owner made from the published
/// one is merged into the portal's copy that devices have synchronised to, on the Portland
/// street trees: every edit of both sides kept, the column both changed decided by the
/// layer's policy and reported, an added field carried, other schema changes refused.
extension SyncTests {
    /// The published version's data, and the owner's new version: that data with `changes`
    /// made, as a rebuild from edited sources gives it.
    func versions(_ w: World, _ dir: String, changes: (SQLiteDatabase) throws -> Void) throws -> (base: String, ours: String) {
        let bytes = try w.package.archive.read(try #require(w.package.dataEntry))
        try writeFile(dir + "/base.gpkg", bytes)
        try writeFile(dir + "/ours.gpkg", bytes)
        let db = try SQLiteDatabase(writablePath: dir + "/ours.gpkg", create: false)
        try GeoPackageFunctions.register(on: db)
        try changes(db)
        try db.close()
        return (dir + "/base.gpkg", dir + "/ours.gpkg")
    }

    func republish(_ w: World, _ paths: (base: String, ours: String), id: String = "republish-1") throws -> RepublishMerge {
        try w.server.republish(
            base: try SQLiteDatabase(readOnlyPath: paths.base), ours: try SQLiteDatabase(readOnlyPath: paths.ours), user: "owner", now: 1_800_000_500, changesetId: id)
    }

    func value(_ path: String, _ column: String, fid: Int64) throws -> SQLiteValue? {
        try SQLiteDatabase(readOnlyPath: path).query("SELECT \(column) FROM trees WHERE fid = ?", [.integer(fid)]).first?[0]
    }

    @Test(Fixtures.required, arguments: ["last_sync_wins", "manual"])
    func aRepublishKeepsEveryEditAndReportsTheColumnBothChanged(policy: String) throws {
        try withTemporaryDirectory { dir in
            let w = try world(dir, conflicts: policy, portland: true)
            // The field: device a changes 5 trees and the trunk of tree 1, device b 5 others.
            for fid in Int64(11)...15 { _ = try w.a.update(layer: "trees", fid: fid, values: [("condition", "Poor")], user: "ana", now: 1_800_000_000) }
            _ = try w.a.update(layer: "trees", fid: 1, values: [("dbh", "99")], user: "ana", now: 1_800_000_000)
            for fid in Int64(16)...20 { _ = try w.b.update(layer: "trees", fid: fid, values: [("common", "field \(fid)")], user: "ben", now: 1_800_000_000) }
            try sync(w.a, w.server, user: "ana")
            try sync(w.b, w.server, user: "ben")
            // The owner: 10 trees renamed, tree 1's trunk too, and a new field.
            let paths = try versions(w, dir) { db in
                for fid in 1...10 { _ = try db.query("UPDATE trees SET common = 'owner \(fid)' WHERE fid = \(fid)") }
                _ = try db.query("UPDATE trees SET dbh = 42 WHERE fid = 1")
                try db.execute("ALTER TABLE trees ADD COLUMN steward TEXT")
                _ = try db.query("UPDATE trees SET steward = 'Friends of Trees' WHERE fid <= 5")
            }
            let result = try republish(w, paths)
            #expect(result.changes == 10, "\(result.changes)")
            #expect(result.addedFields == ["trees.steward"])
            #expect(result.generation > 0)
            // One conflict: tree 1's trunk, decided by the policy.
            let id = try #require(try value(dir + "/portal.gpkg", "globalid", fid: 1)?.text)
            #expect(result.conflicts.count == 1, "\(result.conflicts)")
            let conflict = try #require(result.conflicts.first)
            #expect(conflict.globalid == id && conflict.column == "dbh")
            #expect(conflict.outcome == (policy == "manual" ? .manual : .ours))
            let copy = dir + "/portal.gpkg"
            #expect(try value(copy, "dbh", fid: 1)?.double == (policy == "manual" ? 99 : 42))
            for fid in Int64(1)...10 { #expect(try value(copy, "common", fid: fid)?.text == "owner \(fid)") }
            for fid in Int64(11)...15 { #expect(try value(copy, "condition", fid: fid)?.text == "Poor") }
            for fid in Int64(16)...20 { #expect(try value(copy, "common", fid: fid)?.text == "field \(fid)") }
            #expect(try value(copy, "steward", fid: 3)?.text == "Friends of Trees")
            #expect(try value(copy, "steward", fid: 30) == .null)
            // The same request again changes nothing more.
            let again = try republish(w, paths, id: "republish-2")
            #expect(again.conflicts.isEmpty || policy == "manual")
        }
    }

    @Test(Fixtures.required)
    func devicesReceiveTheOwnersChangesAtTheirNextSync() throws {
        try withTemporaryDirectory { dir in
            let w = try world(dir, portland: true)
            _ = try w.a.update(layer: "trees", fid: 30, values: [("condition", "Dead")], user: "ana", now: 1_800_000_000)
            try sync(w.a, w.server, user: "ana")
            try sync(w.b, w.server, user: "ben")
            let paths = try versions(w, dir) { db in
                _ = try db.query("UPDATE trees SET common = 'owner' WHERE fid IN (2, 3)")
                _ = try db.query("DELETE FROM trees WHERE fid = 4")
            }
            let result = try republish(w, paths)
            #expect(result.changes == 3 && result.conflicts.isEmpty && result.addedFields.isEmpty)
            try sync(w.a, w.server, user: "ana")
            try sync(w.b, w.server, user: "ben")
            let portal = try trees(dir + "/portal.gpkg")
            #expect(try trees(w.a.dataPath) == portal)
            #expect(try trees(w.b.dataPath) == portal)
            #expect(try value(w.b.dataPath, "common", fid: 2)?.text == "owner")
            #expect(try value(w.b.dataPath, "condition", fid: 30)?.text == "Dead")
            #expect(try value(w.a.dataPath, "common", fid: 4) == nil)
        }
    }

    @Test(Fixtures.required)
    func aSchemaChangeOtherThanAddingIsRefusedNamingIt() throws {
        try withTemporaryDirectory { dir in
            let w = try world(dir, portland: true)
            try sync(w.a, w.server, user: "ana")
            let paths = try versions(w, dir) { db in
                try db.execute("ALTER TABLE trees DROP COLUMN scientific")
            }
            #expect {
                _ = try republish(w, paths)
            } throws: { error in
                guard let error = error as? SyncError, error.kind == .schemaMismatch else { return false }
                return error.message.contains("'scientific'")
            }
            // Nothing changed: the copy still has the column.
            #expect(try value(dir + "/portal.gpkg", "scientific", fid: 1) != nil)
        }
    }
}
