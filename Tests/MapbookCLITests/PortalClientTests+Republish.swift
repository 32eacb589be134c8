import Foundation
import MapbookData
import MapbookPackage
import MapbookSearch
import MapbookSupport
import MapbookTestSupport
import Testing

/// Republishing over field work end to end (issue 35), on the Portland street trees: the
/// owner changes 10 trees and adds a field while two devices edit 10 others and one of the
/// owner's; after the republish every edit is in the item's version, the shared one decided by
/// the layer's policy (last sync wins: the owner's republish is the last) and reported.
extension PortalClientTests {
    /// The owner's new version of `package`: its data with `change` made and its locators built
    /// again, as a rebuild from edited sources gives it (same GUID: publishing updates the item).
    func ownersVersion(of package: String, to output: String, _ change: (SQLiteDatabase) throws -> Void) throws {
        let original = try MobileMapPackage(path: package)
        let entry = try #require(original.dataEntry)
        let data = output + ".gpkg"
        try writeFile(data, try original.archive.read(entry))
        let db = try SQLiteDatabase(writablePath: data, create: false)
        try GeoPackageFunctions.register(on: db)
        try change(db)
        try db.close()
        let rebuilt = try LocatorRefresh.rebuild(package: original, dataEntry: entry.name, dataPath: data, layers: ["trees"], into: output + ".locators", reuse: false)
        var replacing: [String: PackageContents.File.Source] = [entry.name: .file(path: data)]
        replacing.merge(LocatorRefresh.entries(rebuilt)) { $1 }
        _ = try PackageRewriter.write(original, replacing: replacing, timestamp: 1_800_000_000, to: output)
    }

    @Test(Fixtures.required)
    func republishingMergesTheOwnersChangesWithTheFieldsAndReportsTheShared() throws {
        try withPortlandOnTwoDevices { server, id, a, b in
            let dir = (a as NSString).deletingLastPathComponent
            for fid in 11...15 { _ = try edit(a, id, ["update", String(fid), "--set", "condition=Poor"]) }
            _ = try edit(a, id, ["update", "1", "--set", "dbh=99"])
            for fid in 16...20 { _ = try edit(b, id, ["update", String(fid), "--set", "common=field \(fid)"]) }
            for home in [a, b] { #expect(try mapbook(["sync"], home: home).status == 0) }

            let v2 = dir + "/PortlandTrees-v2.mmpk"
            try ownersVersion(of: dir + "/PortlandTrees.mmpk", to: v2) { db in
                for fid in 1...10 { _ = try db.query("UPDATE trees SET common = 'owner \(fid)' WHERE fid = \(fid)") }
                _ = try db.query("UPDATE trees SET dbh = 42 WHERE fid = 1")
                try db.execute("ALTER TABLE trees ADD COLUMN steward TEXT")
                _ = try db.query("UPDATE trees SET steward = 'Friends of Trees' WHERE fid <= 5")
            }
            // The publish result says what the merge did.
            let published = try publish(v2, home: a)
            let merge = try #require(published["merge"] as? [String: Any], "\(published)")
            #expect((merge["changes"] as? NSNumber)?.intValue == 10)
            #expect(merge["addedFields"] as? [String] == ["trees.steward"])
            let reported = try #require(merge["conflicts"] as? [[String: Any]])
            #expect(reported.count == 1 && reported.first?["column"] as? String == "dbh" && reported.first?["outcome"] as? String == "ours", "\(reported)")

            // And so does `portal conflicts`.
            let listed = try mapbook(["portal", "conflicts", id, "--json"], home: a)
            #expect(listed.status == 0, "\(listed.stderr)")
            let syncs = try #require(try jsonObject(listed.stdout)["syncs"] as? [[String: Any]])
            #expect(syncs.first?["republish"] as? Bool == true)
            #expect((syncs.first?["conflicts"] as? [[String: Any]])?.first?["column"] as? String == "dbh")
            let text = try mapbook(["portal", "conflicts", id], home: a)
            #expect(text.stdout.contains("1 conflict") && text.stdout.contains("dbh"), "\(text.stdout)")

            // A device still holding the version from before the added field sends its edits.
            _ = try edit(a, id, ["update", "30", "--set", "condition=Dead"])
            let late = try mapbook(["sync"], home: a)
            #expect(late.status == 0, "\(late.stderr)")

            // A device that updates holds every edit: the owner's, both devices', the field.
            let updated = try mapbook(["portal", "update", id], home: b)
            #expect(updated.status == 0, "\(updated.stderr)")
            let package = try MobileMapPackage(path: b + "/downloads/\(id).mmpk")
            let data = try package.database(try #require(package.dataEntry))
            func value(_ column: String, _ fid: Int) throws -> SQLiteValue? {
                try data.query("SELECT \(column) FROM trees WHERE fid = ?", [.integer(Int64(fid))]).first?[0]
            }
            for fid in 1...10 { #expect(try value("common", fid)?.text == "owner \(fid)") }
            for fid in 11...15 { #expect(try value("condition", fid)?.text == "Poor") }
            for fid in 16...20 { #expect(try value("common", fid)?.text == "field \(fid)") }
            #expect(try value("dbh", 1)?.double == 42)
            #expect(try value("steward", 2)?.text == "Friends of Trees")
            #expect(try mapbook(["validate", b + "/downloads/\(id).mmpk"], home: b).status == 0)
            // And its next sync brings what was sent since.
            let synced = try mapbook(["sync"], home: b)
            #expect(synced.status == 0, "\(synced.stderr)")
            let copy = try SQLiteDatabase(readOnlyPath: try workingCopy(b))
            #expect(try copy.scalar("SELECT condition FROM trees WHERE fid = 30") == .text("Dead"))
            #expect(try copy.scalar("SELECT steward FROM trees WHERE fid = 2") == .text("Friends of Trees"))
        }
    }

    @Test(Fixtures.required)
    func aNewVersionThatDropsAFieldTheFieldEditsIsRefusedNamingIt() throws {
        try withPortlandOnTwoDevices { server, id, a, b in
            let dir = (a as NSString).deletingLastPathComponent
            _ = try edit(a, id, ["update", "3", "--set", "condition=Dead"])
            #expect(try mapbook(["sync"], home: a).status == 0)
            let v2 = dir + "/PortlandTrees-v2.mmpk"
            try ownersVersion(of: dir + "/PortlandTrees.mmpk", to: v2) { db in try db.execute("ALTER TABLE trees DROP COLUMN wires") }
            let refused = try mapbook(["portal", "publish", v2], home: a)
            #expect(refused.status != 0)
            // Refused by the merge (the package itself is valid), naming the field.
            #expect(refused.stderr.contains("cannot be merged with the field's edits") && refused.stderr.contains("'wires'"), "\(refused.stderr)")
            // The item keeps its version: a device finds nothing to update.
            let check = try mapbook(["portal", "update", id, "--json"], home: b)
            #expect((try jsonObject(check.stdout)["updated"] as? [Any])?.isEmpty == true, "\(check.stdout)")
        }
    }
}
