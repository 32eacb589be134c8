import Foundation
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing

/// Updates by delta end to end (issue 35): a device holding version 1 fetches only what
/// differs in version 2 and ends with version 2's bytes; an update killed at any moment keeps
/// version 1 whole and the next run finishes it.
extension PortalClientTests {
    /// A package of `rows` points (the same GUID every time), the rows in `changed` renamed.
    func pointsPackage(in dir: String, name: String, rows: Int, changed: Set<Int> = []) throws -> String {
        let gpkg = dir + "/\(name).gpkg"
        try TestPackages.makeGeoPackage(at: gpkg, rows: rows)
        let db = try SQLiteDatabase(writablePath: gpkg)
        for fid in changed { _ = try db.query("UPDATE points SET NAME = 'Changed ' || fid WHERE fid = ?", [.integer(Int64(fid))]) }
        try db.close()
        let path = dir + "/\(name).mmpk"
        _ = try PackageWriter.write(TestPackages.contents(geoPackage: gpkg, timestamp: 1_795_305_600 + Int64(changed.count)), to: path)
        return path
    }

    @Test func anUpdateFetchesOnlyWhatChangedAndSurvivesBeingKilled() throws {
        try withPortal { server, dir in
            let a = dir + "/owner", b = dir + "/device"
            try signIn(server, home: a)
            let v1 = try pointsPackage(in: dir, name: "v1", rows: 20_000)
            let id = try #require(try publish(v1, home: a)["itemId"] as? String)
            try signIn(server, home: b)
            #expect(try mapbook(["portal", "download", id], home: b).status == 0)
            let held = b + "/downloads/\(id).mmpk"
            #expect(try sha256(held) == sha256(v1))

            // A second device holding version 1 too, to be killed while it updates.
            let c = dir + "/killed"
            try signIn(server, home: c)
            #expect(try mapbook(["portal", "download", id], home: c).status == 0)

            let v2 = try pointsPackage(in: dir, name: "v2", rows: 20_000, changed: [10, 11, 12, 7_000, 15_000])
            _ = try publish(v2, home: a)
            let size = Int64(try readFile(v2).count)

            let updated = try mapbook(["portal", "update", id, "--json"], home: b)
            #expect(updated.status == 0, "\(updated.stderr)")
            let outcome = try #require((try jsonObject(updated.stdout)["updated"] as? [[String: Any]])?.first, "\(updated.stdout)")
            #expect(outcome["delta"] as? Bool == true, "\(updated.stdout)")
            #expect((outcome["fileBytes"] as? NSNumber)?.int64Value == size)
            let fetched = try #require((outcome["fetchedBytes"] as? NSNumber)?.int64Value)
            #expect(fetched < size / 10, "fetched \(fetched) of \(size) bytes")

            // Killed at 20 moments of an update (each run from the start): the version held
            // stays whole every time.
            let killedHeld = c + "/downloads/\(id).mmpk", partial = c + "/downloads/\(id).partial"
            let versions = [try sha256(v1), try sha256(v2)]
            var interrupted = 0
            for moment in 1...20 {
                try? FileManager.default.removeItem(atPath: partial)
                if try CrashSafetyTests.kill(["portal", "update", id], environment: ["MAPBOOK_HOME": c], afterWriting: Int64(moment) * size / 21) { interrupted += 1 }
                #expect(try sha256(killedHeld) == versions[0], "killed after \(moment)/21 of the package: the version held must stay whole")
            }
            #expect(interrupted >= 10, "only \(interrupted) runs were killed")
            // The last run's bytes are kept, and the next run goes on from them.
            let resumed = try mapbook(["portal", "update", id, "--json"], home: c)
            let after = try #require((try jsonObject(resumed.stdout)["updated"] as? [[String: Any]])?.first, "\(resumed.stdout) \(resumed.stderr)")
            #expect(((after["resumedFrom"] as? NSNumber)?.int64Value ?? 0) > 0, "\(resumed.stdout)")
            #expect(try sha256(killedHeld) == versions[1])
            // The device holds version 2 byte for byte, as a whole download would.
            #expect(try sha256(held) == sha256(v2))
            #expect(try mapbook(["validate", held], home: b).status == 0)
        }
    }

    @Test func anUpdateAcrossTwoVersionsAppliesTheirPatchesAndGCPrunesThemOnceDevicesMovedOn() throws {
        try withPortal { server, dir in
            let a = dir + "/owner", b = dir + "/first", c = dir + "/second"
            try signIn(server, home: a)
            let v1 = try pointsPackage(in: dir, name: "v1", rows: 20_000)
            let id = try #require(try publish(v1, home: a)["itemId"] as? String)
            for home in [b, c] {
                try signIn(server, home: home)
                #expect(try mapbook(["portal", "download", id], home: home).status == 0)
            }
            // Two versions, each changing 50 rows spread over the table.
            let v2 = try pointsPackage(in: dir, name: "v2", rows: 20_000, changed: Set(stride(from: 5, to: 20_000, by: 400)))
            _ = try publish(v2, home: a)
            let v3 = try pointsPackage(in: dir, name: "v3", rows: 20_000, changed: Set(stride(from: 9, to: 20_000, by: 400)))
            _ = try publish(v3, home: a)

            let updated = try mapbook(["portal", "update", id, "--json"], home: b)
            let outcome = try #require((try jsonObject(updated.stdout)["updated"] as? [[String: Any]])?.first, "\(updated.stdout) \(updated.stderr)")
            #expect(outcome["delta"] as? Bool == true, "\(updated.stdout)")
            let fetched = try #require((outcome["fetchedBytes"] as? NSNumber)?.int64Value)
            #expect(try sha256(b + "/downloads/\(id).mmpk") == sha256(v3))
            // The patches of both versions, applied in turn, cost a fraction of the changed pages.
            let blocks = DeltaPlan(new: try PackageLayout.read(path: v3), old: try PackageLayout.read(path: v1)).fetchedBytes
            #expect(fetched * 3 < blocks, "fetched \(fetched) bytes; the changed pages are \(blocks)")

            // The second device still holds version 1: gc keeps every patch.
            func gc() throws -> String {
                let run = try mapbook(["portal", "gc", "--data", server.data, "--older-than", "0"], home: a)
                #expect(run.status == 0, "\(run.stderr)")
                return run.stdout
            }
            #expect(try gc().contains("removed 0 entry patches"))
            // Once it has version 3 too, no reporting device needs them.
            #expect(try mapbook(["portal", "update", id], home: c).status == 0)
            #expect(try sha256(c + "/downloads/\(id).mmpk") == sha256(v3))
            let pruned = try gc()
            #expect(!pruned.contains("removed 0 entry patches") && pruned.contains("entry patches"), "\(pruned)")
        }
    }
}
