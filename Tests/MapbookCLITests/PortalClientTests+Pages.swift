import Foundation
import MapbookSupport
import MapbookTestSupport
import Testing

/// The portal's item page as its admin sees devices at work (issue 34): two devices download
/// an editable package, synchronise into a conflict, a version 2 comes out, one device updates;
/// the page says who holds which version and shows the conflict, in Debian's chromium
/// (tools/web/portal_devices_check.py), and a version required from the page reaches the
/// devices' update check.
extension PortalClientTests {
    @Test(.enabled(if: ServeBrowserTests.hasBrowser || ExternalTools.isCI, "Debian's chromium or Playwright in .venv is missing (tools/setup installs both)"))
    func theItemPageShowsWhoHoldsWhichVersionAndTheConflicts() throws {
        try withPortal { server, dir in
            let project = try NapervilleSample.project()
            defer { project.remove() }
            let package = dir + "/Naperville.mmpk"
            let built = try MapbookBinary.run(["create", project.path + "/project.yaml", "-o", package, "--fixed-time", "2026-01-01"])
            try #require(built.status == 0, "\(built.stderr)")
            let (id, a, b) = try onTwoDevices(package, server, dir)
            // B turns valve 1 to 10 and synchronises first; A turns it to 20 and synchronises.
            for (home, turns) in [(b, "10"), (a, "20")] {
                let done = try mapbook(["edit", "update", home + "/downloads/\(id).mmpk", "--layer", "valves", "1", "--set", "TURNS=\(turns)"], home: home)
                try #require(done.status == 0, "\(done.stderr)")
                let synced = try mapbook(["sync"], home: home)
                try #require(synced.status == 0, "\(synced.stderr)")
            }
            let v2 = dir + "/Naperville v2.mmpk"
            let rebuilt = try MapbookBinary.run(["create", project.path + "/project.yaml", "-o", v2, "--fixed-time", "2026-02-01"])
            try #require(rebuilt.status == 0, "\(rebuilt.stderr)")
            #expect(try publish(v2, home: b)["action"] as? String == "updated")

            let script = Fixtures.repositoryRoot.appendingPathComponent("tools/web/portal_devices_check.py").path
            let shots = dir + "/shots"
            let (stale, staleOutput) = try ExternalTools.run(ExternalTools.python, [script, server.url, id, Self.alice.password, shots, "stale"])
            #expect(stale == 0 && staleOutput.contains("all checks passed"), "\(staleOutput.suffix(3000))")

            // B is told its version is required; A updates and is current.
            let checked = try mapbook(["portal", "check", "--json"], home: b)
            let statuses = try jsonArray(checked.stdout)
            #expect(statuses.first?["updateRequired"] as? Bool == true && statuses.first?["status"] as? String == "update-required", "\(checked.stdout) \(checked.stderr)")
            let updated = try mapbook(["portal", "update", id], home: a)
            #expect(updated.status == 0, "\(updated.stderr)")
            let (after, afterOutput) = try ExternalTools.run(ExternalTools.python, [script, server.url, id, Self.alice.password, shots, "updated"])
            #expect(after == 0 && afterOutput.contains("all checks passed"), "\(afterOutput.suffix(3000))")
        }
    }
}
