import Foundation
import MapbookPackage
import MapbookTestSupport
import Testing

@testable import MapbookPortal
@testable import MapbookLibrary

/// The files the portal client keeps in the device library besides packages: the ETag of an
/// unfinished download and the portal's certificate (docs/LIBRARY.md).
@Suite struct DeviceLibraryPortalClientFilesTests {
    static let portal = "https://127.0.0.1:8443"
    static let itemId = "3f2c9a7e5b1d4c8fa0e6b2d4c6e8f0a1"

    @Test func anUnfinishedDownloadKeepsItsETagUntilCommittedAndIsNotAForeignFile() throws {
        try withTemporaryDirectory { dir in
            let library = DeviceLibrary(root: dir + "/home")
            try library.setMode(.portal, portalURL: Self.portal)
            let package = try TestPackages.makePackage(in: dir)
            let bytes = try readFile(package)
            let partial = try library.partialDownloadPath(itemId: Self.itemId)
            #expect(try library.partialDownloadETag(itemId: Self.itemId) == nil)

            try writeFile(partial, Array(bytes.prefix(100)))
            try library.setPartialDownloadETag("\"abc\"", itemId: Self.itemId)
            #expect(try library.partialDownloadETag(itemId: Self.itemId) == "\"abc\"")
            #expect(try library.list().isEmpty, "an unfinished download and its ETag are not packages, nor foreign files")

            try writeFile(partial, bytes)
            let record = DownloadRecord(
                portalUrl: Self.portal, itemId: Self.itemId, title: "Water", itemModifiedAtDownload: 1, downloadedAt: 2, size: Int64(bytes.count),
                sha256: SHA256Digest.hex(of: bytes), etag: "\"abc\"")
            try library.commitDownload(itemId: Self.itemId, from: partial, record: record)
            #expect(!FileManager.default.fileExists(atPath: dir + "/home/downloads/\(Self.itemId).etag"))
            #expect(try library.list().map(\.problem) == [nil])

            // Discarding removes both, so the next download starts from the first byte.
            _ = try library.partialDownloadPath(itemId: Self.itemId)
            try writeFile(partial, Array(bytes.prefix(10)))
            try library.setPartialDownloadETag("\"def\"", itemId: Self.itemId)
            #expect(try library.discardPartialDownload(itemId: Self.itemId))
            #expect(!FileManager.default.fileExists(atPath: partial))
            #expect(try library.partialDownloadETag(itemId: Self.itemId) == nil)
        }
    }

    @Test func theKeptCertificateGoesWithTheSignIn() throws {
        try withTemporaryDirectory { dir in
            let library = DeviceLibrary(root: dir + "/home")
            #expect(throws: LibraryError.self) { try library.savePortalCertificate(Array("PEM".utf8)) }
            try library.setMode(.portal, portalURL: Self.portal)
            try library.savePortalCertificate(Array("-----BEGIN CERTIFICATE-----\n".utf8))
            #expect(try library.portalCertificate() == dir + "/home/portal-ca.pem")
            try library.setPartialDownloadETag("\"x\"", itemId: Self.itemId)

            let cleanup = try library.signOut()
            #expect(cleanup.removedPortalCertificate)
            #expect(try library.portalCertificate() == nil)
            #expect(!FileManager.default.fileExists(atPath: dir + "/home/downloads/\(Self.itemId).etag"))

            try library.savePortalCertificate(Array("-----BEGIN CERTIFICATE-----\n".utf8))
            #expect(try library.setMode(.device, portalURL: nil).removedPortalCertificate)
            #expect(try library.portalCertificate() == nil)
        }
    }
}
