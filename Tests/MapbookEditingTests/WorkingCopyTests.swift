import Foundation
import MapbookData
import MapbookEditing
import MapbookPackage
import MapbookPackager
import MapbookSupport
import MapbookTestSupport
import Testing

/// Edits on a package's working copy: written with their changesets in one transaction, the
/// package itself untouched, refusals leaving nothing behind.
@Suite struct WorkingCopyTests {
    /// A package of three trees, editable (condition from a list, dbh in a range, tracking).
    func package(_ dir: String, timestamp: Int64 = 1_700_000_000) throws -> MobileMapPackage {
        let project = try EditableTrees.write(in: dir)
        _ = try Packager.build(try Project.load(path: project), output: dir + "/trees.mmpk", timestamp: timestamp)
        return try MobileMapPackage(path: dir + "/trees.mmpk")
    }

    func rows(_ path: String) throws -> [[SQLiteValue]] {
        try SQLiteDatabase(readOnlyPath: path).query("SELECT fid, common, dbh, condition, globalid, last_edited_user, hex(geom) FROM trees ORDER BY fid")
    }

    @Test func editsLandInTheCopyWithTheirChangesets() throws {
        try withTemporaryDirectory { dir in
            let package = try package(dir)
            let packageBytes = try Data(contentsOf: URL(fileURLWithPath: dir + "/trees.mmpk"))
            try FileManager.default.createDirectory(atPath: dir + "/edits", withIntermediateDirectories: true)
            let copy = try WorkingCopy(package: package, folder: dir + "/edits")
            let added = try copy.add(layer: "trees", geometry: Geometry(.point(Position(x: -122.63, y: 45.53)), hasZ: false, hasM: false), values: [("common", "maple"), ("dbh", "4")], user: "ana", now: 1_800_000_000)
            #expect(added.operation == .insert && added.fid == 4)
            _ = try copy.update(layer: "trees", fid: 1, values: [("condition", "poor")], user: "ben", now: 1_800_000_060)
            _ = try copy.delete(layer: "trees", fid: 3, now: 1_800_000_120)
            let after = try rows(copy.dataPath)
            #expect(after.map { $0[0].int64 ?? 0 } == [1, 2, 4])
            // The default filled the new tree's condition; the tracking fields say who.
            #expect(after[2][3] == .text("Good") && after[2][5] == .text("ana") && after[0][3] == .text("Poor") && after[0][5] == .text("ben"))
            // A random globalid, version 4, its own.
            let newID = after[2][4].text ?? ""
            #expect(newID == added.globalid && newID.count == 38 && Array(newID)[15] == "4")
            #expect(Set(after.compactMap { $0[4].text }).count == 3)
            // The log holds the three, oldest first; their changesets replay the copy's state
            // on the package's own data.gpkg.
            let pending = try copy.pending()
            #expect(pending.map(\.operation) == [.insert, .update, .delete])
            let entry = try #require(package.archive.entries.first { $0.name.hasSuffix("/data.gpkg") })
            try writeFile(dir + "/replay.gpkg", try package.archive.read(entry))
            let replay = try SQLiteDatabase(writablePath: dir + "/replay.gpkg", create: false)
            try GeoPackageFunctions.register(on: replay)
            for change in pending { try replay.apply(changeset: change.changeset) { _, _ in .abort } }
            #expect(try rows(dir + "/replay.gpkg") == after)
            // The new point is in the layer's coordinate system (Web Mercator).
            guard case .blob(let blob)? = try SQLiteDatabase(readOnlyPath: copy.dataPath).query("SELECT geom FROM trees WHERE fid = 4").first?[0] else {
                Issue.record("the new tree has no geometry")
                return
            }
            let geometry = try GeoPackageBinary.decode(blob).geometry
            if case .point(let p) = geometry.shape { #expect(abs(p.x + 13_650_829) < 2_000, "\(p)") } else { Issue.record("not a point") }
            // The package is as it was.
            #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/trees.mmpk")) == packageBytes)
        }
    }

    @Test func refusedEditsChangeNothing() throws {
        try withTemporaryDirectory { dir in
            let package = try package(dir)
            try FileManager.default.createDirectory(atPath: dir + "/edits", withIntermediateDirectories: true)
            let copy = try WorkingCopy(package: package, folder: dir + "/edits")
            let before = try rows(copy.dataPath)
            func kind(_ body: () throws -> WorkingCopy.Change) -> EditError.Kind? {
                do { _ = try body(); return nil } catch let error as EditError { return error.kind } catch { Issue.record("\(error)"); return nil }
            }
            #expect(kind { try copy.update(layer: "trees", fid: 1, values: [("dbh", "500")], user: "ana", now: 0) } == .outOfRange)
            #expect(kind { try copy.update(layer: "trees", fid: 1, values: [("condition", "Splendid")], user: "ana", now: 0) } == .notInDomain)
            #expect(kind { try copy.update(layer: "trees", fid: 99, values: [("dbh", "5")], user: "ana", now: 0) } == .noSuchFeature)
            #expect(kind { try copy.delete(layer: "trees", fid: 99, now: 0) } == .noSuchFeature)
            #expect(kind { try copy.update(layer: "trees", fid: 1, values: [("globalid", "{0}")], user: "ana", now: 0) } == .readOnly)
            let line = Geometry(.lineString([Position(x: -122.6, y: 45.5), Position(x: -122.5, y: 45.6)]), hasZ: false, hasM: false)
            #expect(kind { try copy.add(layer: "trees", geometry: line, values: [("common", "fir")], user: "ana", now: 0) } == .wrongType)
            #expect(try rows(copy.dataPath) == before)
            #expect(try copy.pending().isEmpty)
        }
    }

    /// An updated package: a copy without pending edits is made again from the new data; one
    /// with pending edits is refused until they are discarded (or synchronised).
    @Test func anUpdatedPackageIsNotEditedOnItsOldData() throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir + "/edits", withIntermediateDirectories: true)
            var copy: WorkingCopy? = try WorkingCopy(package: try package(dir), folder: dir + "/edits")
            _ = try copy?.update(layer: "trees", fid: 1, values: [("dbh", "20")], user: "ana", now: 0)
            copy = nil
            let updated = try package(dir, timestamp: 1_800_000_000)
            let refused = #expect(throws: EditError.self) { _ = try WorkingCopy(package: updated, folder: dir + "/edits") }
            #expect(refused?.kind == .packageChanged)
            #expect(try WorkingCopy.discard(folder: dir + "/edits") == 1)
            try FileManager.default.createDirectory(atPath: dir + "/edits", withIntermediateDirectories: true)
            // Unedited, the copy follows the package.
            copy = try WorkingCopy(package: updated, folder: dir + "/edits")
            copy = nil
            let again = try package(dir, timestamp: 1_900_000_000)
            let fresh = try WorkingCopy(package: again, folder: dir + "/edits")
            #expect(try fresh.pending().isEmpty)
            #expect(try rows(fresh.dataPath).first?[2] == .real(10.5))
        }
    }
}
