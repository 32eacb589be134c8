import Foundation
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing

@testable import MapbookLibrary

/// The device library (DESIGN.md section 7): modes, sideloading, downloads, the credential.
@Suite struct DeviceLibraryTests {
    static let portal = "https://portal.example.com/portal"
    static let itemId = "3f2c9a7e5b1d4c8fa0e6b2d4c6e8f0a1"

    /// Writes a small valid package titled `title` at `directory/name`; `timestamp` changes its bytes.
    @discardableResult
    func makePackage(in directory: String, name: String, title: String = "Sample Package", timestamp: Int64 = 1_795_305_600) throws -> String {
        let gpkg = directory + "/data.gpkg"
        if !FileManager.default.fileExists(atPath: gpkg) { try TestPackages.makeGeoPackage(at: gpkg) }
        var contents = TestPackages.contents(geoPackage: gpkg, timestamp: timestamp)
        contents.manifest.title = title
        let path = directory + "/" + name
        _ = try PackageWriter.write(contents, to: path)
        return path
    }

    /// Downloads `package` into the library as a portal client does: into the partial path,
    /// then committed with its record.
    @discardableResult
    func download(_ package: String, into library: DeviceLibrary, itemId: String = itemId, title: String = "Naperville Water",
        modified: Int64 = 1_763_100_000_000) throws -> DownloadRecord
    {
        let bytes = try readFile(package)
        let partial = try library.partialDownloadPath(itemId: itemId)
        try writeFile(partial, bytes)
        let record = DownloadRecord(
            portalUrl: Self.portal, itemId: itemId, title: title, itemModifiedAtDownload: modified, downloadedAt: 1_763_200_000_000,
            size: Int64(bytes.count), sha256: SHA256Digest.hex(of: bytes), etag: "\"v\(modified)\"")
        try library.commitDownload(itemId: itemId, from: partial, record: record)
        return record
    }

    func permissions(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    func credential(_ portal: String = portal) -> Credential {
        Credential(
            portalUrl: portal, username: "alice", token: "tok-123", expires: 1_763_300_000_000, referer: "mapbook",
            refreshToken: "refresh-456", refreshTokenExpires: 1_764_000_000_000, clientId: "mapbook-cli")
    }

    // MARK: - Records

    @Test func aDownloadRecordRoundTripsThroughItsSidecarText() throws {
        for etag in ["\"abc\"", nil] {
            let record = DownloadRecord(
                portalUrl: Self.portal, itemId: Self.itemId, title: "Naperville Water", itemModifiedAtDownload: 1_763_100_000_000,
                downloadedAt: 1_763_200_000_123, size: 12_345_678, sha256: String(repeating: "ab", count: 32), etag: etag)
            let text = JSONWriter.string(record.jsonValue)
            #expect(try DownloadRecord(json: try JSONParser.parse(text), path: "x.json") == record)
        }
    }

    @Test(arguments: ["portalUrl", "itemId", "itemModifiedAtDownload", "downloadedAt", "size", "sha256"])
    func aRecordWithoutARequiredFieldIsRefusedNamingTheFileAndField(_ key: String) throws {
        let record = DownloadRecord(
            portalUrl: Self.portal, itemId: Self.itemId, title: "T", itemModifiedAtDownload: 1, downloadedAt: 2, size: 3,
            sha256: String(repeating: "0", count: 64))
        var object = try #require(record.jsonValue.objectValue)
        object[key] = nil
        let error = try #require(throws: LibraryError.self) { try DownloadRecord(json: .object(object), path: "/lib/downloads/x.json") }
        #expect(error.kind == .invalidRecord)
        #expect(error.description.contains("/lib/downloads/x.json") && error.description.contains(key))
    }

    /// The update check compares the portal item's `modified` with the one at download time.
    @Test func anUpdateIsAvailableOnlyWhenTheItemWasModifiedSinceTheDownload() {
        let record = DownloadRecord(
            portalUrl: Self.portal, itemId: Self.itemId, title: "T", itemModifiedAtDownload: 1_000, downloadedAt: 5_000, size: 1,
            sha256: String(repeating: "0", count: 64))
        #expect(record.updateAvailable(itemModified: 1_001))
        #expect(!record.updateAvailable(itemModified: 1_000))
        #expect(!record.updateAvailable(itemModified: 999))
    }

    // MARK: - Where the library is

    @Test func theDefaultRootIsMapbookHomeThenXDGDataHomeThenTheHomeFolder() {
        #expect(DeviceLibrary.defaultRoot(environment: ["MAPBOOK_HOME": "/srv/mb", "XDG_DATA_HOME": "/x", "HOME": "/home/a"]) == "/srv/mb")
        #expect(DeviceLibrary.defaultRoot(environment: ["MAPBOOK_HOME": "", "XDG_DATA_HOME": "/x", "HOME": "/home/a"]) == "/x/mapbook")
        // The XDG specification says a relative XDG_DATA_HOME is invalid and ignored.
        #expect(DeviceLibrary.defaultRoot(environment: ["XDG_DATA_HOME": "rel", "HOME": "/home/a"]) == "/home/a/.local/share/mapbook")
        #expect(DeviceLibrary.defaultRoot(environment: ["HOME": "/home/a"]) == "/home/a/.local/share/mapbook")
    }

    @Test func readingALibraryThatDoesNotExistCreatesNothing() throws {
        try withTemporaryDirectory { dir throws in
            let library = DeviceLibrary(root: dir + "/nowhere/mapbook")
            #expect(try library.mode() == .device)
            #expect(try library.list().isEmpty)
            #expect(try library.credential() == nil)
            #expect(!FileManager.default.fileExists(atPath: dir + "/nowhere"))
        }
    }

    @Test func portalURLsAreStoredInOneFormAndNeverWithAPassword() throws {
        #expect(try DeviceLibrary.normalizedPortalURL("HTTPS://Portal.Example.com/portal/") == "https://portal.example.com/portal")
        for bad in ["ftp://host", "portal.example.com", "https://alice:secret@host/portal", "https://", "https://host/p?x=1", "https://host/a b"] {
            #expect(throws: LibraryError.self, "\(bad)") { try DeviceLibrary.normalizedPortalURL(bad) }
        }
    }

    // MARK: - Modes

    @Test func sideloadedPackagesAreHiddenInPortalModeAndBackInDeviceModeNeverDeleted() throws {
        try withTemporaryDirectory { dir in
            let library = DeviceLibrary(root: dir + "/lib")
            let added = try library.addSideloaded(try makePackage(in: dir, name: "Water.mmpk", title: "Water Network"))
            #expect(added.kind == .sideloaded && added.name == "Water.mmpk" && added.title == "Water Network")
            #expect(try library.list().map(\.title) == ["Water Network"])

            try library.setMode(.portal, portalURL: Self.portal)
            #expect(try library.mode() == .portal)
            #expect(try library.portalURL() == Self.portal)
            #expect(try library.list().isEmpty)
            #expect(FileManager.default.fileExists(atPath: added.path))

            let cleanup = try library.setMode(.device, portalURL: nil)
            #expect(cleanup.isEmpty)
            #expect(try library.list().map(\.title) == ["Water Network"])
            #expect(try library.portalURL() == nil)
        }
    }

    @Test func portalModeListsDownloadsWithTheirRecords() throws {
        try withTemporaryDirectory { dir in
            let library = DeviceLibrary(root: dir + "/lib")
            try library.addSideloaded(try makePackage(in: dir, name: "Side.mmpk", title: "Sideloaded"))
            try library.setMode(.portal, portalURL: Self.portal)
            let record = try download(try makePackage(in: dir, name: "n.mmpk"), into: library)
            let entries = try library.list()
            #expect(entries.count == 1)
            let entry = try #require(entries.first)
            #expect(entry.kind == .downloaded && entry.itemId == Self.itemId && entry.title == "Naperville Water")
            #expect(entry.record == record && entry.size == record.size && entry.problem == nil)
            #expect(entry.path == dir + "/lib/downloads/\(Self.itemId).mmpk")
            #expect(try library.downloads() == [record])
        }
    }

    @Test func switchingToDeviceModeRemovesDownloadsAndTheCredentialAndSaysWhat() throws {
        try withTemporaryDirectory { dir in
            let library = DeviceLibrary(root: dir + "/lib")
            try library.addSideloaded(try makePackage(in: dir, name: "Side.mmpk", title: "Sideloaded"))
            try library.setMode(.portal, portalURL: Self.portal)
            try download(try makePackage(in: dir, name: "n.mmpk"), into: library)
            try writeFile(try library.partialDownloadPath(itemId: "0123abcd"), "half a download")
            try library.saveCredential(credential())

            let cleanup = try library.setMode(.device, portalURL: nil)
            #expect(cleanup.removedPackages.map(\.itemId) == [Self.itemId])
            #expect(cleanup.removedPartialDownloads == ["0123abcd"])
            #expect(cleanup.removedCredential?.username == "alice")
            #expect(try library.credential() == nil)
            #expect(try library.downloads().isEmpty)
            #expect(listTree(dir + "/lib/downloads").isEmpty)
            #expect(try library.list().map(\.title) == ["Sideloaded"])
        }
    }

    @Test func signingOutRemovesDownloadsAndTheCredentialButKeepsPortalModeAndSideloads() throws {
        try withTemporaryDirectory { dir in
            let library = DeviceLibrary(root: dir + "/lib")
            let side = try library.addSideloaded(try makePackage(in: dir, name: "Side.mmpk"))
            try library.setMode(.portal, portalURL: Self.portal)
            try download(try makePackage(in: dir, name: "n.mmpk"), into: library)
            try library.saveCredential(credential())

            let cleanup = try library.signOut()
            #expect(cleanup.removedPackages.count == 1 && cleanup.removedCredential != nil)
            #expect(try library.credential() == nil && library.list().isEmpty)
            #expect(try library.mode() == .portal && library.portalURL() == Self.portal)
            #expect(FileManager.default.fileExists(atPath: side.path))
        }
    }

    @Test func switchingToAnotherPortalRemovesTheOldPortalsDownloadsAndCredential() throws {
        try withTemporaryDirectory { dir in
            let library = DeviceLibrary(root: dir + "/lib")
            try library.setMode(.portal, portalURL: Self.portal)
            try download(try makePackage(in: dir, name: "n.mmpk"), into: library)
            try library.saveCredential(credential())

            // The same portal, written differently, is not a switch.
            #expect(try library.setMode(.portal, portalURL: "https://PORTAL.example.com/portal/").isEmpty)
            #expect(try library.downloads().count == 1)

            let cleanup = try library.setMode(.portal, portalURL: "https://other.example.com")
            #expect(cleanup.removedPackages.count == 1 && cleanup.removedCredential != nil)
            #expect(try library.portalURL() == "https://other.example.com")
            #expect(try library.downloads().isEmpty && library.credential() == nil)
        }
    }

    @Test func portalModeNeedsAPortalAndDownloadsNeedPortalMode() throws {
        try withTemporaryDirectory { dir throws in
            let library = DeviceLibrary(root: dir + "/lib")
            #expect(throws: LibraryError.self) { try library.setMode(.portal, portalURL: nil) }
            #expect(throws: LibraryError.self) { try library.partialDownloadPath(itemId: Self.itemId) }
            #expect(throws: LibraryError.self) { try library.saveCredential(credential()) }
            #expect(try library.mode() == .device)
        }
    }

    // MARK: - The credential

    /// The file is 0600 where a plain create gives 0644 (the usual umask 022). The process's
    /// umask is not changed here to try a permissive one: tests run in parallel in one process,
    /// and others compare the modes of files they create.
    @Test func theCredentialIsOwnerOnlyAndHoldsNoPassword() throws {
        try withTemporaryDirectory { dir in
            let library = DeviceLibrary(root: dir + "/lib")
            try library.setMode(.portal, portalURL: Self.portal)
            try library.saveCredential(credential())
            // Replacing it keeps it owner-only.
            try library.saveCredential(credential())

            let path = dir + "/lib/credential.json"
            #expect(try permissions(path) == 0o600)
            #expect(try library.credential() == credential())
            let keys = try #require(try JSONParser.parse(readFile(path)).objectValue?.keys)
            #expect(Set(keys) == ["portalUrl", "username", "token", "expires", "referer", "refreshToken", "refreshTokenExpires", "clientId"])
            #expect(!String(describing: credential()).contains("tok-123"), "printing a credential must not show its token")
            #expect(!listTree(dir + "/lib").contains { $0.contains(".tmp-") })
        }
    }

    @Test func aCredentialForAnotherPortalIsRefused() throws {
        try withTemporaryDirectory { dir in
            let library = DeviceLibrary(root: dir + "/lib")
            try library.setMode(.portal, portalURL: Self.portal)
            #expect(throws: LibraryError.self) { try library.saveCredential(credential("https://other.example.com")) }
            #expect(try library.credential() == nil)
        }
    }

    // MARK: - Downloads

    @Test func commitDownloadReplacesThePairAndLeavesNoTemporaryFiles() throws {
        try withTemporaryDirectory { dir in
            let library = DeviceLibrary(root: dir + "/lib")
            try library.setMode(.portal, portalURL: Self.portal)
            let v1 = try makePackage(in: dir, name: "v1.mmpk", timestamp: 1_795_305_600)
            let v2 = try makePackage(in: dir, name: "v2.mmpk", timestamp: 1_795_400_000)
            #expect(try readFile(v1) != readFile(v2))
            try download(v1, into: library, modified: 1_000)
            let second = try download(v2, into: library, modified: 2_000)

            #expect(try library.downloads() == [second])
            #expect(try readFile(dir + "/lib/downloads/\(Self.itemId).mmpk") == readFile(v2))
            #expect(listTree(dir + "/lib/downloads") == ["\(Self.itemId).json", "\(Self.itemId).mmpk"])
        }
    }

    @Test func aDownloadThatDoesNotMatchItsRecordIsRefusedAndTheOldPairStays() throws {
        try withTemporaryDirectory { dir in
            let library = DeviceLibrary(root: dir + "/lib")
            try library.setMode(.portal, portalURL: Self.portal)
            let first = try download(try makePackage(in: dir, name: "v1.mmpk"), into: library)
            let bytes = try readFile(try makePackage(in: dir, name: "v2.mmpk", timestamp: 1_795_400_000))
            let partial = try library.partialDownloadPath(itemId: Self.itemId)
            var record = first
            record.itemModifiedAtDownload += 1

            try writeFile(partial, Array(bytes.prefix(100)))
            record.size = Int64(bytes.count)
            record.sha256 = SHA256Digest.hex(of: bytes)
            let short = try #require(throws: LibraryError.self) { try library.commitDownload(itemId: Self.itemId, from: partial, record: record) }
            #expect(short.kind == .incompleteDownload)
            #expect(short.path == partial)

            var damaged = bytes
            damaged[damaged.count / 2] ^= 0xFF
            try writeFile(partial, damaged)
            let wrong = try #require(throws: LibraryError.self) { try library.commitDownload(itemId: Self.itemId, from: partial, record: record) }
            #expect(wrong.kind == .damagedDownload)
            #expect(wrong.path == partial)

            let junk = Array(repeating: UInt8(7), count: 64)
            try writeFile(partial, junk)
            record.size = 64
            record.sha256 = SHA256Digest.hex(of: junk)
            #expect(throws: LibraryError.self) { try library.commitDownload(itemId: Self.itemId, from: partial, record: record) }

            #expect(try library.downloads() == [first])
            #expect(FileManager.default.fileExists(atPath: partial), "a refused download stays, to resume or delete")
        }
    }

    /// A crash after the package was staged but before its record was: the old pair stays.
    @Test func aCommitCutShortBeforeItsRecordWasStagedIsUndone() throws {
        try withTemporaryDirectory { dir in
            let library = DeviceLibrary(root: dir + "/lib")
            try library.setMode(.portal, portalURL: Self.portal)
            let first = try download(try makePackage(in: dir, name: "v1.mmpk"), into: library)
            let downloads = dir + "/lib/downloads/"
            try writeFile(downloads + "\(Self.itemId).mmpk.incoming", try readFile(try makePackage(in: dir, name: "v2.mmpk", timestamp: 9)))
            try writeFile(downloads + ".\(Self.itemId).json.incoming.tmp-Ab12Cd", "{\"half")

            #expect(try library.downloads() == [first])
            #expect(try library.list().allSatisfy { $0.problem == nil })
            #expect(listTree(downloads) == ["\(Self.itemId).json", "\(Self.itemId).mmpk"])
        }
    }

    /// A crash after the record was staged: the commit is finished, whichever rename it reached.
    @Test(arguments: [false, true])
    func aCommitCutShortAfterItsRecordWasStagedIsFinished(packageAlreadyInPlace: Bool) throws {
        try withTemporaryDirectory { dir in
            let library = DeviceLibrary(root: dir + "/lib")
            try library.setMode(.portal, portalURL: Self.portal)
            try download(try makePackage(in: dir, name: "v1.mmpk"), into: library)
            let downloads = dir + "/lib/downloads/"
            let v2 = try readFile(try makePackage(in: dir, name: "v2.mmpk", timestamp: 9))
            let newRecord = DownloadRecord(
                portalUrl: Self.portal, itemId: Self.itemId, title: "Version 2", itemModifiedAtDownload: 2_000, downloadedAt: 3_000,
                size: Int64(v2.count), sha256: SHA256Digest.hex(of: v2))
            try writeFile(downloads + "\(Self.itemId).mmpk" + (packageAlreadyInPlace ? "" : ".incoming"), v2)
            try writeFile(downloads + "\(Self.itemId).json.incoming", JSONWriter.bytes(newRecord.jsonValue))

            #expect(try library.downloads() == [newRecord])
            #expect(try readFile(downloads + "\(Self.itemId).mmpk") == v2)
            #expect(listTree(downloads) == ["\(Self.itemId).json", "\(Self.itemId).mmpk"])
        }
    }

    @Test(arguments: ["../escape", "a/b", "", ".", "..", String(repeating: "a", count: 65), "abc def", "ünïcode", "abc\u{0}", "-rf", "a.b"])
    func hostileItemIdsAreRefused(_ id: String) throws {
        #expect(!ItemID.isValid(id))
        try withTemporaryDirectory { dir in
            let library = DeviceLibrary(root: dir + "/lib")
            try library.setMode(.portal, portalURL: Self.portal)
            try writeFile(dir + "/p.partial", "x")
            #expect(throws: LibraryError.self) { try library.partialDownloadPath(itemId: id) }
            let record = DownloadRecord(
                portalUrl: Self.portal, itemId: id, title: "T", itemModifiedAtDownload: 1, downloadedAt: 2, size: 1,
                sha256: SHA256Digest.hex(of: Array("x".utf8)))
            #expect(throws: LibraryError.self) { try library.commitDownload(itemId: id, from: dir + "/p.partial", record: record) }
            #expect(throws: LibraryError.self) { try DownloadRecord(json: record.jsonValue, path: "r.json") }
            #expect(listTree(dir).sorted() == ["lib", "lib/.lock", "lib/library.json", "p.partial"])
        }
    }

    @Test func arcGISAndOtherPortalsIdsAreAccepted() {
        #expect(ItemID.isValid(Self.itemId))
        #expect(ItemID.isValid("A1"))
        #expect(ItemID.isValid(String(repeating: "Z", count: 64)))
    }

    // MARK: - Damaged and foreign files

    @Test func damagedAndForeignDownloadsAreReportedNotFatal() throws {
        try withTemporaryDirectory { dir in
            let library = DeviceLibrary(root: dir + "/lib")
            try library.setMode(.portal, portalURL: Self.portal)
            let good = try download(try makePackage(in: dir, name: "n.mmpk"), into: library)
            let downloads = dir + "/lib/downloads/"
            let package = try readFile(try makePackage(in: dir, name: "o.mmpk"))
            try writeFile(downloads + "aaaa1111.mmpk", package)
            try writeFile(downloads + "aaaa1111.json", "not json {")
            try writeFile(downloads + "bbbb2222.mmpk", package)
            try writeFile(downloads + "cccc3333.json", JSONWriter.bytes(good.jsonValue))
            var shrunk = good
            shrunk.itemId = "dddd4444"
            shrunk.size += 1
            try writeFile(downloads + "dddd4444.mmpk", package)
            try writeFile(downloads + "dddd4444.json", JSONWriter.bytes(shrunk.jsonValue))
            try writeFile(downloads + "notes.txt", "mine")

            let entries = try library.list()
            func problem(_ name: String) -> String? { entries.first { $0.name == name }?.problem }
            #expect(entries.count == 6)
            #expect(problem("\(Self.itemId).mmpk") == nil)
            #expect(problem("aaaa1111.mmpk")?.contains("damaged download record, aaaa1111.json: the download record is not valid JSON") == true)
            #expect(problem("bbbb2222.mmpk")?.contains("no download record") == true)
            #expect(problem("cccc3333.json")?.contains("is for item \(Self.itemId)") == true)
            #expect(problem("dddd4444.mmpk")?.contains("bytes") == true)
            #expect(problem("notes.txt")?.contains("not a download") == true)
            #expect(try library.downloads() == [good])

            // Each can be cleared by the name the listing gives.
            for name in ["aaaa1111", "bbbb2222", "cccc3333", "dddd4444", "notes.txt"] { try library.remove(name) }
            #expect(listTree(downloads) == ["\(Self.itemId).json", "\(Self.itemId).mmpk"])
        }
    }

    @Test func aSideloadedFileThatIsNotAPackageIsReported() throws {
        try withTemporaryDirectory { dir in
            let library = DeviceLibrary(root: dir + "/lib")
            try library.addSideloaded(try makePackage(in: dir, name: "Good.mmpk"))
            try writeFile(dir + "/lib/sideloaded/Broken.mmpk", "PK not really")
            let entries = try library.list()
            #expect(entries.count == 2)
            #expect(entries.first { $0.name == "Good.mmpk" }?.problem == nil)
            #expect(entries.first { $0.name == "Broken.mmpk" }?.problem?.contains("does not open as a mobile map package") == true)
        }
    }

    @Test func aDamagedModeFileIsAClearError() throws {
        try withTemporaryDirectory { dir in
            let library = DeviceLibrary(root: dir)
            try writeFile(dir + "/library.json", "{\"mode\": \"sideways\"}")
            let error = try #require(throws: LibraryError.self) { try library.list() }
            #expect(error.kind == .invalidState)
            #expect(error.description.contains(dir + "/library.json"))
        }
    }

    // MARK: - Sideloading and removing

    @Test func addingRefusesWhatIsNotAPackageAndCopiesNothing() throws {
        try withTemporaryDirectory { dir in
            let library = DeviceLibrary(root: dir + "/lib")
            try writeFile(dir + "/fake.mmpk", "hello")
            let error = try #require(throws: LibraryError.self) { try library.addSideloaded(dir + "/fake.mmpk") }
            guard case .notAPackage = error.kind else { Issue.record("\(error)"); return }
            #expect(error.description.contains(dir + "/fake.mmpk"))
            #expect { try library.addSideloaded(dir + "/missing.mmpk") } throws: { error in
                (error as? LibraryError)?.kind == .notAPackage(.archive(.io(errno: ENOENT)))
            }
            #expect(listTree(dir + "/lib/sideloaded").isEmpty)
        }
    }

    @Test func aNameAlreadyTakenGetsANumberAndTheOriginalStays() throws {
        try withTemporaryDirectory { dir in
            let library = DeviceLibrary(root: dir + "/lib")
            let source = try makePackage(in: dir, name: "Water.mmpk")
            let names = try (0..<3).map { _ in try library.addSideloaded(source).name }
            #expect(names == ["Water.mmpk", "Water-2.mmpk", "Water-3.mmpk"])
            #expect(FileManager.default.fileExists(atPath: source))
            #expect(try readFile(dir + "/lib/sideloaded/Water-3.mmpk") == readFile(source))
            #expect(!listTree(dir + "/lib").contains { $0.contains(".tmp-") })
        }
    }

    @Test func sideloadedNamesAreSafeFileNames() {
        #expect(DeviceLibrary.sideloadedName(forSource: "/a/b/Water.MMPK") == "Water.mmpk")
        #expect(DeviceLibrary.sideloadedName(forSource: "/a/.hidden.mmpk") == "hidden.mmpk")
        #expect(DeviceLibrary.sideloadedName(forSource: "/a/download") == "download.mmpk")
        #expect(DeviceLibrary.sideloadedName(forSource: "/a/..mmpk") == "package.mmpk")
        #expect(DeviceLibrary.sideloadedName(forSource: "/a/x\ny.mmpk") == "x_y.mmpk")
    }

    @Test func removeTakesANameItemIdOrUniqueTitleInTheCurrentModeOnly() throws {
        try withTemporaryDirectory { dir in
            let library = DeviceLibrary(root: dir + "/lib")
            let source = try makePackage(in: dir, name: "Water.mmpk", title: "Water Network")
            try library.addSideloaded(source)
            try library.addSideloaded(source)
            try library.addSideloaded(try makePackage(in: dir, name: "Trees.mmpk", title: "Street Trees"))

            // Two packages share the title: the error names both, and nothing is removed.
            let ambiguous = try #require(throws: LibraryError.self) { try library.remove("Water Network") }
            #expect(ambiguous.kind == .ambiguousName)
            #expect(ambiguous.description.contains("Water.mmpk") && ambiguous.description.contains("Water-2.mmpk"))
            #expect(try library.list().count == 3)
            #expect(try library.remove("Water-2").name == "Water-2.mmpk")
            #expect(try library.remove("Street Trees").name == "Trees.mmpk")
            #expect(try library.list().map(\.name) == ["Water.mmpk"])

            try library.setMode(.portal, portalURL: Self.portal)
            try download(try makePackage(in: dir, name: "n.mmpk"), into: library)
            let hidden = try #require(throws: LibraryError.self) { try library.remove("Water.mmpk") }
            #expect(hidden.kind == .wrongMode)
            #expect(FileManager.default.fileExists(atPath: dir + "/lib/sideloaded/Water.mmpk"))
            #expect { try library.remove("nothing-like-it") } throws: { ($0 as? LibraryError)?.kind == .noSuchPackage }

            #expect(try library.remove(Self.itemId).itemId == Self.itemId)
            #expect(try library.list().isEmpty)
            #expect(listTree(dir + "/lib/downloads").isEmpty)
        }
    }

    /// A package's working copy folder: under edits/ by GUID, private, and never from a GUID
    /// that could name another place.
    @Test func editsFolderIsPerGUIDAndPrivate() throws {
        try withTemporaryDirectory { dir in
            let library = DeviceLibrary(root: dir + "/lib")
            let folder = try library.editsFolder(packageGUID: "{9C1F2A3B-0D4E-8F56-A789-0B1C2D3E4F50}")
            #expect(folder == dir + "/lib/edits/{9C1F2A3B-0D4E-8F56-A789-0B1C2D3E4F50}")
            #expect(try permissions(folder) == 0o700)
            for bad in ["../../etc", "", "a/b", "guid with spaces"] {
                let refused = #expect(throws: LibraryError.self) { _ = try library.editsFolder(packageGUID: bad) }
                #expect(refused?.kind == .invalidState)
            }
        }
    }
}
