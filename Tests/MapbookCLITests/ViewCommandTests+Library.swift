import Foundation
import MapbookSupport
import MapbookTestSupport
import Testing

extension ViewCommandTests {
    /// A portal with alice (admin) and a device library signed in to it: `body` gets the
    /// server, the work folder and the library's home; the portal stops after.
    func withSignedInLibrary(_ body: (PortalServerProcess, String, String) throws -> Void) throws {
        try withTemporaryDirectory { dir in
            let server = try PortalServerProcess(users: [("alice", "alice-password-1", true)])
            defer {
                server.stop()
                server.removeData()
            }
            let home = dir + "/home"
            let signin = try MapbookBinary.run(
                ["portal", "signin", server.url, "--user", "alice", "--password-stdin", "--ca-cert", server.certificate], environment: ["MAPBOOK_HOME": home],
                stdin: "alice-password-1\n")
            try #require(signin.status == 0, "\(signin.stderr)")
            try body(server, dir, home)
        }
    }

    /// Portal mode: the portal's packages listed and downloaded, an update found and fetched;
    /// then, with the portal stopped, the library still opens, says it is offline and when it
    /// last checked, keeps the badges, and the downloaded package opens.
    @Test(tmuxRequired)
    func theLibraryInPortalModeOnlineThenOffline() throws {
        try withSignedInLibrary { server, dir, home in
            func mapbook(_ arguments: [String]) throws -> MapbookBinary.Result {
                try MapbookBinary.run(arguments, environment: ["MAPBOOK_HOME": home])
            }
            let published = try mapbook(["portal", "publish", try TestPackages.makePackage(in: dir, name: "v1.mmpk")])
            try #require(published.status == 0, "\(published.stderr)")
            let command = "MAPBOOK_HOME=\(home) \(MapbookBinary.path) view --terminal-mode 256; echo EXIT:$?"

            let window = try Window(command)
            let listed = try window.wait { $0.contains("On the portal, not downloaded") && $0.contains("updates checked") }
            #expect(listed.contains("Portal mode: \(server.url), signed in as alice: 0 downloaded"), "\(listed)")
            #expect(listed.contains("Sample Package  [d download]"), "\(listed)")
            try window.keys("d")
            let downloaded = try window.wait { $0.contains("[up to date]") && $0.contains("downloaded 'Sample Package'") }
            #expect(downloaded.contains("1 downloaded"), "\(downloaded)")
            #expect(!downloaded.contains("On the portal, not downloaded"), "\(downloaded)")
            #expect(try mapbook(["library", "list"]).stdout.contains("Sample Package"))

            // A newer version on the portal: r checks, u fetches it.
            let v2 = try mapbook(["portal", "publish", try TestPackages.makePackage(in: dir, name: "v2.mmpk", timestamp: 1_800_000_000)])
            try #require(v2.status == 0, "\(v2.stderr)")
            try window.keys("r")
            let update = try window.wait { $0.contains("[update available: u]") }
            #expect(update.contains("[update available: u]"), "\(update)")
            try window.keys("u")
            let updated = try window.wait { $0.contains("[up to date]") && $0.contains("downloaded 'Sample Package'") }
            #expect(updated.contains("[up to date]"), "\(updated)")
            try window.keys("q")
            _ = try window.wait { $0.split(separator: "\n").contains { $0.hasPrefix("EXIT:") } }

            // The portal stops: the library still shows, offline, with the last check's time.
            server.stop()
            let offline = try Window(command)
            let screen = try offline.wait { $0.contains("offline:") }
            #expect(screen.contains("offline: the portal cannot be reached; updates checked "), "\(screen)")
            #expect(screen.contains("Sample Package  [up to date]"), "\(screen)")
            try offline.keys("Enter")
            let maps = try offline.wait { $0.contains("Sample Package: 2 maps") }
            #expect(maps.contains("1. First Map") && maps.contains("2. Second Map"), "\(maps)")
            try offline.keys("Enter")
            let map = try offline.wait { Self.scale($0) != nil && !$0.contains("drawing") }
            #expect(Self.scale(map) != nil, "the downloaded package did not open offline: \(map)")
            try offline.keys("q")
            let after = try offline.wait { $0.split(separator: "\n").contains { $0.hasPrefix("EXIT:") } }
            #expect(after.contains("EXIT:0"), "\(after)")
        }
    }

    /// `o` on the map of a downloaded package takes the area on screen offline: the portal
    /// makes the package (issue 33), the map says so, and the library holds one package more.
    @Test(tmuxRequired)
    func theMapTakesTheAreaOnScreenOffline() throws {
        try withSignedInLibrary { _, dir, home in
            func mapbook(_ arguments: [String]) throws -> MapbookBinary.Result {
                let result = try MapbookBinary.run(arguments, environment: ["MAPBOOK_HOME": home])
                try #require(result.status == 0, "\(arguments): \(result.stderr)")
                return result
            }
            let published = try mapbook(["portal", "publish", try TestPackages.makePackage(in: dir, name: "v1.mmpk"), "--json"])
            let id = try #require(try JSONParser.parse(Array(published.stdout.utf8)).objectValue?.string("itemId"))
            _ = try mapbook(["portal", "download", id])
            let window = try Window("MAPBOOK_HOME=\(home) \(MapbookBinary.path) view --terminal-mode 256; echo EXIT:$?")
            _ = try window.wait { $0.contains("Sample Package") }
            try window.keys("Enter")
            _ = try window.wait { $0.contains("Sample Package: 2 maps") }
            try window.keys("Enter")
            _ = try window.wait { Self.scale($0) != nil && !$0.contains("drawing") }
            try window.keys("o")
            let done = try window.wait { $0.contains("took this view offline") || $0.contains("not taken offline") }
            #expect(done.contains("took this view offline: 'Sample Package (area)'"), "\(done)")
            try window.keys("q")
            _ = try window.wait { $0.split(separator: "\n").contains { $0.hasPrefix("EXIT:") } }
            let listed = try mapbook(["library", "list", "--json"])
            #expect(listed.stdout.contains("Sample Package (area)"), "\(listed.stdout)")
        }
    }

    /// Past its date, a package with preventExpiredAccess does not open and says its own
    /// message; one with allowExpiredAccess opens under a banner with it.
    @Test(tmuxRequired)
    func expiredPackagesAreRefusedOrBannered() throws {
        try withTemporaryDirectory { dir in
            let project = try CommandTests().makeProject(in: dir)
            let text = try String(contentsOfFile: project, encoding: .utf8)
            let original = "expiration: { date: 2099-01-01, message: Ask GIS for a new copy }"
            try #require(text.contains(original))
            var packages: [String: String] = [:]
            for kind in ["preventExpiredAccess", "allowExpiredAccess"] {
                try text.replacingOccurrences(of: original, with: "expiration: { date: 2020-01-01, type: \(kind), message: Ask GIS for a new copy }")
                    .write(toFile: project, atomically: true, encoding: .utf8)
                let created = try MapbookBinary.run(["create", project, "-o", dir + "/\(kind).mmpk"])
                try #require(created.status == 0, "\(created.stderr)")
                packages[kind] = dir + "/\(kind).mmpk"
            }
            let home = dir + "/home"
            let refused = try Window("MAPBOOK_HOME=\(home) \(MapbookBinary.path) view \(packages["preventExpiredAccess"]!) --terminal-mode 256; echo EXIT:$?")
            let said = try refused.wait { $0.split(separator: "\n").contains { $0.hasPrefix("EXIT:") } }
            #expect(said.contains("expired on 2020-01-01 and can no longer be opened: Ask GIS for a new copy"), "\(said)")
            #expect(said.contains("EXIT:1"), "\(said)")

            let allowed = try Window("MAPBOOK_HOME=\(home) \(MapbookBinary.path) view \(packages["allowExpiredAccess"]!) --terminal-mode 256; echo EXIT:$?")
            let banner = try allowed.wait { Self.scale($0) != nil && !$0.contains("drawing") }
            #expect(banner.split(separator: "\n").first?.contains("⚠ 'Command Test' expired on 2020-01-01: Ask GIS for a new copy") == true, "\(banner)")

            // From the library, the refused package says why and stays on the library.
            #expect(try MapbookBinary.run(["library", "add", packages["preventExpiredAccess"]!], environment: ["MAPBOOK_HOME": home]).status == 0)
            let library = try Window("MAPBOOK_HOME=\(home) \(MapbookBinary.path) view --terminal-mode 256; echo EXIT:$?")
            let listed = try library.wait { $0.contains("Device mode: 1 sideloaded package") }
            #expect(listed.contains("expired, cannot be opened 2020-01-01"), "\(listed)")
            try library.keys("Enter")
            let refusal = try library.wait { $0.contains("can no longer be opened") }
            #expect(refusal.contains("Ask GIS for a new copy") && refusal.contains("Device mode"), "\(refusal)")
        }
    }
}
