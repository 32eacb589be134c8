import Foundation
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing

@testable import MapbookLibrary

/// The library's trusted keys and its refusal of tampered signed packages (issue 35).
@Suite struct TrustedKeysTests {
    let helper = DeviceLibraryTests()

    func signedPackage(in dir: String, key: SigningKey, name: String = "Signed.mmpk") throws -> String {
        let path = try helper.makePackage(in: dir, name: name)
        _ = try PackageSigner.sign(path, keys: [key])
        return path
    }

    /// A copy of `path` with one byte of its data entry changed: the signature still verifies
    /// over the manifest, but the entry no longer matches it.
    func tampered(_ path: String, in dir: String) throws -> String {
        let archive = try ZipArchive(path: path)
        let data = try archive.dataRange(of: archive.entry(named: "p20/data.gpkg")!)
        var bytes = try readFile(path)
        bytes[Int(data.offset) + 100] ^= 0x40
        let bad = dir + "/tampered.mmpk"
        try writeFile(bad, bytes)
        return bad
    }

    @Test func keysAreAddedListedAndRemovedByFingerprintOrName() throws {
        try withTemporaryDirectory { (dir: String) throws in
            let library = DeviceLibrary(root: dir + "/lib")
            let a = SigningKey().publicKey, b = SigningKey().publicKey
            #expect(try library.trust(a, name: "alice"))
            #expect(try !library.trust(a, name: "again"))
            #expect(try library.trust(b, name: "bob"))
            #expect(try library.trustedKeys().map(\.name) == ["alice", "bob"])
            #expect(try library.distrust(a.fingerprint).map(\.name) == ["alice"])
            #expect(try library.distrust("bob").map(\.key) == [b])
            #expect(try library.trustedKeys().isEmpty)
            #expect { try library.distrust("nobody") } throws: { ($0 as? LibraryError)?.kind == .noSuchKey }
        }
    }

    /// The portal's keys are replaced as a whole at each sign-in: a key withdrawn goes, keys
    /// added by hand stay.
    @Test func aKeyThePortalWithdrewStopsBeingTrustedAtTheNextSignIn() throws {
        try withTemporaryDirectory { (dir: String) throws in
            let library = DeviceLibrary(root: dir + "/lib")
            let mine = SigningKey().publicKey, old = SigningKey().publicKey, new = SigningKey().publicKey
            try library.trust(mine, name: "mine")
            try library.replacePortalKeys([(old, "alice (portal)")], portal: DeviceLibraryTests.portal)
            try library.replacePortalKeys([(old, "alice (portal)"), (new, "alice (portal)")], portal: DeviceLibraryTests.portal)
            #expect(try library.trustedKeys().map(\.key) == [mine, old, new])
            try library.replacePortalKeys([(new, "alice (portal)")], portal: DeviceLibraryTests.portal)
            #expect(try library.trustedKeys().map(\.key) == [mine, new])
            #expect(try library.trustedKeys().map(\.portal) == [nil, DeviceLibraryTests.portal])
        }
    }

    @Test func aTamperedSignedPackageIsNeitherAddedNorDownloadedNorOpened() throws {
        try withTemporaryDirectory { (dir: String) throws in
            let library = DeviceLibrary(root: dir + "/lib")
            let key = SigningKey()
            let good = try signedPackage(in: dir, key: key)
            let bad = try tampered(good, in: dir)
            // Sideloading.
            #expect { try library.addSideloaded(bad) } throws: { ($0 as? LibraryError)?.kind == .notAPackage(.signature(.entryMismatch)) }
            let added = try library.addSideloaded(good)
            #expect(FileManager.default.fileExists(atPath: added.path))
            // Downloading: the hash is the portal's, the file is not what was signed.
            try library.setMode(.portal, portalURL: DeviceLibraryTests.portal)
            #expect { try helper.download(bad, into: library) } throws: { ($0 as? LibraryError)?.kind == .notAPackage(.signature(.entryMismatch)) }
            #expect(!FileManager.default.fileExists(atPath: dir + "/lib/downloads/\(DeviceLibraryTests.itemId).mmpk"))
            try helper.download(good, into: library)
            // Opening: what a viewer does.
            #expect(throws: PackageFormatError.self) { try library.verifiedFiles.open(bad) }
            #expect(try library.verifiedFiles.open(dir + "/lib/downloads/\(DeviceLibraryTests.itemId).mmpk").signature.isSigned)
        }
    }
}
