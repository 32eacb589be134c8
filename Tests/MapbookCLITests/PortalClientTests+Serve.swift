import Foundation
import MapbookSupport
import MapbookTestSupport
import Testing

/// `mapbook serve`'s pages with a real portal process behind the device library: the sync
/// from a map page and the library's update badge and Update now action, in Debian's chromium
/// (tools/web/sync_check.py).
extension PortalClientTests {
    @Test(.enabled(if: ServeBrowserTests.hasBrowser || ExternalTools.isCI, "Debian's chromium or Playwright in .venv is missing (tools/setup installs both)"))
    func aMapPageSynchronisesTheEditsListsTheConflictAndTheLibraryShowsAnUpdate() throws {
        try withPortal { server, dir in
            let project = try NapervilleSample.project()
            defer { project.remove() }
            let package = dir + "/Naperville.mmpk"
            let built = try MapbookBinary.run(["create", project.path + "/project.yaml", "-o", package, "--fixed-time", "2026-01-01"])
            try #require(built.status == 0, "\(built.stderr)")
            let (id, a, b) = try onTwoDevices(package, server, dir)
            func edit(_ home: String, _ arguments: [String]) throws {
                let done = try mapbook(["edit", arguments[0], home + "/downloads/\(id).mmpk", "--layer", "valves"] + arguments.dropFirst(), home: home)
                try #require(done.status == 0, "edit \(arguments): \(done.stderr)")
            }
            // B turns valve 1 to 10 and synchronises first; A turns it to 20 and adds a valve.
            try edit(b, ["update", "1", "--set", "TURNS=10"])
            let synced = try mapbook(["sync"], home: b)
            try #require(synced.status == 0, "\(synced.stderr)")
            try edit(a, ["update", "1", "--set", "TURNS=20"])
            try edit(a, ["add", "--at=-88.15,41.77", "--set", "VALVETYPE=Gate", "--set", "TURNS=5"])
            let portalCopy = server.data + "/sync/\(id)/data.gpkg"
            let valvesBefore = try SQLiteDatabase(readOnlyPath: portalCopy).scalar("SELECT count(*) FROM valves")?.int64 ?? 0

            let script = Fixtures.repositoryRoot.appendingPathComponent("tools/web/sync_check.py").path
            let shots = dir + "/shots"
            let (status, output) = try ExternalTools.run(ExternalTools.python, [script, MapbookBinary.path, a, shots, "sync"])
            #expect(status == 0 && output.contains("all checks passed"), "\(output.suffix(3000))")

            // The portal has A's edits: the last to synchronise wins the field, the new valve is there.
            let portal = try SQLiteDatabase(readOnlyPath: portalCopy)
            #expect(try portal.scalar("SELECT TURNS FROM valves WHERE fid = 1")?.int64 == 20)
            #expect(try portal.scalar("SELECT count(*) FROM valves")?.int64 == valvesBefore + 1)

            // A new version published: after `mapbook portal check`, the library page says so.
            let v2 = dir + "/Naperville v2.mmpk"
            let rebuilt = try MapbookBinary.run(["create", project.path + "/project.yaml", "-o", v2, "--fixed-time", "2026-02-01"])
            try #require(rebuilt.status == 0, "\(rebuilt.stderr)")
            #expect(try publish(v2, home: b)["action"] as? String == "updated")
            let checked = try mapbook(["portal", "check"], home: a)
            #expect(checked.stdout.contains("update available"), "\(checked.stdout) \(checked.stderr)")
            let (badge, badgeOutput) = try ExternalTools.run(ExternalTools.python, [script, MapbookBinary.path, a, shots, "update"])
            #expect(badge == 0 && badgeOutput.contains("all checks passed"), "\(badgeOutput.suffix(3000))")
            // The page's Update now left the device with the portal's current version.
            let after = try mapbook(["portal", "update", id, "--json"], home: a)
            #expect((try jsonObject(after.stdout)["updated"] as? [Any])?.isEmpty == true, "\(after.stdout) \(after.stderr)")
        }
    }
}
