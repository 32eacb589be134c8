import Foundation
import MapbookPackage
import MapbookTestSupport
import Testing

@Suite struct PackageWriterTests {
    @Test func writesTheLayoutItsReaderExpects() throws {
        try withTemporaryDirectory { dir in
            let path = try TestPackages.makePackage(in: dir)
            let package = try MobileMapPackage(path: path)
            #expect(package.archive.entries.map(\.name) == [
                "esriinfo/item.pkinfo", "esriinfo/iteminfo.xml", "esriinfo/thumbnail/thumbnail.png",
                "p20/First Map.mmap", "p20/Second Map.mmap", "p20/data.gpkg", "Sample.info",
            ])
            #expect(package.folder == "p20")
            #expect(package.manifest.maps == ["First Map", "Second Map"])
            #expect(package.mapEntries.map(\.name) == ["p20/First Map.mmap", "p20/Second Map.mmap"])
            let digests = try #require(package.manifest.mapbook?.entries)
            #expect(digests.count == 6)
            let gpkg = try readFile(dir + "/data.gpkg")
            #expect(digests["p20/data.gpkg"] == EntryDigest(size: Int64(gpkg.count), sha256: SHA256Digest.hex(of: gpkg)))
            let map = try package.map(package.mapEntries[0])
            #expect(map.map.operationalLayers?.first?.dataPath?.table == "points")
            #expect(try package.itemInfo()?.title == "Sample Package")
        }
    }

    @Test func rebuildsByteIdentically() throws {
        try withTemporaryDirectory { dir in
            let a = try TestPackages.makePackage(in: dir, name: "a.mmpk")
            let b = try TestPackages.makePackage(in: dir, name: "b.mmpk")
            #expect(try readFile(a) == readFile(b))
        }
    }

    @Test func aFailedWriteLeavesNothingBehind() throws {
        try withTemporaryDirectory { dir in
            try TestPackages.makeGeoPackage(at: dir + "/data.gpkg")
            var contents = TestPackages.contents(geoPackage: dir + "/data.gpkg")
            contents.files.append(.init(path: "missing.gpkg", source: .file(path: dir + "/does-not-exist.gpkg")))
            #expect(throws: ArchiveError.self) { try PackageWriter.write(contents, to: dir + "/out.mmpk") }
            contents.files = [.init(path: "../escape", source: .bytes([1]))]
            #expect(throws: ArchiveError.self) { try PackageWriter.write(contents, to: dir + "/out.mmpk") }
            #expect(listTree(dir) == ["data.gpkg"])
        }
    }

    @Test func replacesAnExistingPackageOnlyWhenTheNewOneIsComplete() throws {
        try withTemporaryDirectory { dir in
            let path = try TestPackages.makePackage(in: dir, name: "p.mmpk")
            let before = try readFile(path)
            var contents = TestPackages.contents(geoPackage: dir + "/data.gpkg")
            contents.files.append(.init(path: "gone", source: .file(path: dir + "/nope")))
            #expect(throws: (any Error).self) { try PackageWriter.write(contents, to: path) }
            #expect(try readFile(path) == before)
        }
    }
}
