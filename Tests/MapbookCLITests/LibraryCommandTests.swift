import Foundation
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing

/// End-to-end: `mapbook library`, with MAPBOOK_HOME pointing at a fresh folder.
@Suite struct LibraryCommandTests {
    static let portal = "https://portal.example.com/portal"
    static let itemId = "3f2c9a7e5b1d4c8fa0e6b2d4c6e8f0a1"

    func run(_ arguments: [String], home: String) throws -> MapbookBinary.Result {
        try MapbookBinary.run(["library"] + arguments, environment: ["MAPBOOK_HOME": home])
    }

    @Test func addListAndRemoveASideloadedPackage() throws {
        try withTemporaryDirectory { dir in
            let home = dir + "/home"
            let empty = try run(["list"], home: home)
            #expect(empty.status == 0, "\(empty.stderr)")
            #expect(empty.stdout.contains("Device mode: no sideloaded packages"))
            #expect(!FileManager.default.fileExists(atPath: home), "listing must not create the library")

            let package = try TestPackages.makePackage(in: dir)
            let add = try run(["add", package], home: home)
            #expect(add.status == 0, "\(add.stderr)")
            #expect(add.stdout.hasPrefix("Added 'Sample Package' as Sample.mmpk ("))

            let list = try run(["list"], home: home)
            #expect(list.status == 0, "\(list.stderr)")
            #expect(list.stdout.contains("Device mode: 1 sideloaded package"))
            #expect(list.stdout.contains("Sample Package") && list.stdout.contains("Sample.mmpk"))

            let json = try JSONParser.parse(try run(["list", "--json"], home: home).stdout).objectValue
            #expect(json?.string("mode") == "device")
            let entry = try #require(json?.array("packages")?.first?.objectValue)
            #expect(entry.string("title") == "Sample Package" && entry.string("kind") == "sideloaded")
            #expect(entry.int64("size") == Int64(try readFile(package).count))
            #expect(entry["itemId"] == .null && entry["problem"] == .null)

            let remove = try run(["remove", "Sample.mmpk"], home: home)
            #expect(remove.status == 0, "\(remove.stderr)")
            #expect(remove.stdout.contains("Removed 'Sample Package' (Sample.mmpk)"))
            #expect(try run(["list"], home: home).stdout.contains("no sideloaded packages"))
            #expect(FileManager.default.fileExists(atPath: package), "the original is the user's")
        }
    }

    /// Portal mode hides sideloads; device mode removes downloads and the credential, saying so.
    /// The download and credential are written by hand, as docs/LIBRARY.md lays them out.
    @Test func switchingModesHidesSideloadsAndRemovesDownloadsSayingWhat() throws {
        try withTemporaryDirectory { dir in
            let home = dir + "/home"
            let package = try TestPackages.makePackage(in: dir)
            #expect(try run(["add", package], home: home).status == 0)
            #expect(try run(["mode"], home: home).stdout == "device\n")

            let toPortal = try run(["mode", "portal", "--portal", Self.portal + "/"], home: home)
            #expect(toPortal.status == 0, "\(toPortal.stderr)")
            #expect(toPortal.stdout.contains("Switched to portal mode with \(Self.portal)"))
            #expect(try run(["mode"], home: home).stdout == "portal \(Self.portal)\n")
            #expect(try run(["list"], home: home).stdout.contains("Portal mode, \(Self.portal): no downloaded packages"))

            let bytes = try readFile(package)
            try writeFile(home + "/downloads/\(Self.itemId).mmpk", bytes)
            try writeFile(home + "/downloads/\(Self.itemId).json", """
                {"portalUrl": "\(Self.portal)", "itemId": "\(Self.itemId)", "title": "Naperville Water",
                 "itemModifiedAtDownload": 1763100000000, "downloadedAt": 1763200000000, "size": \(bytes.count),
                 "sha256": "\(SHA256Digest.hex(of: bytes))", "etag": null}
                """)
            try writeFile(home + "/credential.json", """
                {"portalUrl": "\(Self.portal)", "username": "alice", "token": "t", "expires": 1763300000000}
                """)

            let list = try run(["list"], home: home)
            #expect(list.status == 0, "\(list.stderr)")
            #expect(list.stdout.contains("1 downloaded package"))
            #expect(list.stdout.contains("Naperville Water") && list.stdout.contains(Self.itemId))
            #expect(list.stdout.contains("modified 2025-11-14T06:00:00Z"))
            #expect(!list.stdout.contains("Sample Package"), "sideloaded packages are hidden in portal mode")
            let entry = try #require(try JSONParser.parse(try run(["list", "--json"], home: home).stdout).objectValue?.array("packages")?.first?.objectValue)
            #expect(entry.string("kind") == "downloaded" && entry.string("itemId") == Self.itemId)
            #expect(entry.string("portalUrl") == Self.portal && entry.int64("itemModifiedAtDownload") == 1_763_100_000_000)

            let toDevice = try run(["mode", "device"], home: home)
            #expect(toDevice.status == 0, "\(toDevice.stderr)")
            #expect(toDevice.stdout.contains("Switched to device mode"))
            #expect(toDevice.stdout.contains("Removed 1 downloaded package: 'Naperville Water'"))
            #expect(toDevice.stdout.contains("Signed out alice of \(Self.portal)"))
            #expect(!FileManager.default.fileExists(atPath: home + "/credential.json"))
            #expect(listTree(home + "/downloads").isEmpty)
            #expect(try run(["list"], home: home).stdout.contains("Sample Package"))
        }
    }

    @Test(arguments: [
        ["mode", "sideways"],
        ["mode", "device", "--portal", "https://portal.example.com"],
        ["mode", "portal"],
        ["mode", "portal", "--portal", "ftp://portal.example.com"],
        ["mode", "portal", "--portal", "https://alice:secret@portal.example.com"],
        ["add"],
        ["remove"],
        ["list", "--bogus"],
    ])
    func usageErrorsExit64(_ arguments: [String]) throws {
        try withTemporaryDirectory { dir in
            let result = try run(arguments, home: dir + "/home")
            #expect(result.status == 64, "\(arguments): \(result.stdout)\(result.stderr)")
            #expect(!result.stderr.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: dir + "/home/library.json"))
        }
    }

    @Test func addingAFileThatIsNotAPackageFailsNamingIt() throws {
        try withTemporaryDirectory { dir in
            let home = dir + "/home"
            try writeFile(dir + "/notes.mmpk", "not a package")
            let add = try run(["add", dir + "/notes.mmpk"], home: home)
            #expect(add.status == 1)
            #expect(add.stderr.contains(dir + "/notes.mmpk") && add.stderr.contains("cannot be added"), "\(add.stderr)")
            #expect(add.stdout.isEmpty)
            #expect(listTree(home + "/sideloaded").isEmpty)
        }
    }

    @Test func listReportsADamagedFileAndStillShowsTheRest() throws {
        try withTemporaryDirectory { dir in
            let home = dir + "/home"
            #expect(try run(["add", try TestPackages.makePackage(in: dir)], home: home).status == 0)
            try writeFile(home + "/sideloaded/Broken.mmpk", "PK")
            let list = try run(["list"], home: home)
            #expect(list.status == 1)
            #expect(list.stdout.contains("Sample Package") && list.stdout.contains("! Broken.mmpk"), "\(list.stdout)")
            #expect(list.stderr.contains("warning: '\(home)/sideloaded/Broken.mmpk' does not open as a mobile map package"), "\(list.stderr)")
            #expect(!list.stderr.contains("Fatal error"))
            let json = try JSONParser.parse(try run(["list", "--json"], home: home).stdout)
            #expect(json.objectValue?.array("packages")?.compactMap { $0.objectValue?.string("problem") }.count == 1)
        }
    }

    @Test func removingAnUnknownPackageFailsAndSaysHowToFindNames() throws {
        try withTemporaryDirectory { dir in
            let result = try run(["remove", "Nothing"], home: dir + "/home")
            #expect(result.status == 1)
            #expect(result.stderr.contains("no package 'Nothing'") && result.stderr.contains("mapbook library list"), "\(result.stderr)")
        }
    }
}
