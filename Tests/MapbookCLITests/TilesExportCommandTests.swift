import Foundation
import MapbookPackage
import MapbookTestSupport
import Testing

/// End-to-end: `mapbook tiles export` on the real basemap package, alone and inside a `.mmpk`.
@Suite struct TilesExportCommandTests {
    func basemap(in dir: String) throws -> String {
        try zipStored(folder: Fixtures.path("vtpk-basemapde/sample_cache"), to: dir + "/basemap.vtpk")
        return dir + "/basemap.vtpk"
    }

    @Test(Fixtures.required) func exportsAVectorTilePackageAndRefusesToOverwriteWithoutForce() throws {
        try withTemporaryDirectory { dir in
            let vtpk = try basemap(in: dir)
            let first = try MapbookBinary.run(["tiles", "export", vtpk, "--format", "pmtiles", "-o", dir + "/out.pmtiles"])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.contains("Exported 5 tiles (zooms 0-4, 34 layers: "), "\(first.stdout)")
            #expect(first.stdout.contains("Wrote \(dir)/out.pmtiles (pmtiles"))
            let written = try readFile(dir + "/out.pmtiles")
            #expect(Array(written.prefix(7)) == Array("PMTiles".utf8))

            let again = try MapbookBinary.run(["tiles", "export", vtpk, "--format", "mbtiles", "-o", dir + "/out.pmtiles"])
            #expect(again.status == 1)
            #expect(again.stderr.contains("'\(dir)/out.pmtiles'") && again.stderr.contains("--force"), "\(again.stderr)")
            #expect(try readFile(dir + "/out.pmtiles") == written)

            let forced = try MapbookBinary.run(["tiles", "export", vtpk, "--format", "mbtiles", "-o", dir + "/out.pmtiles", "--force"])
            #expect(forced.status == 0, "\(forced.stderr)")
            #expect(Array(try readFile(dir + "/out.pmtiles").prefix(15)) == Array("SQLite format 3".utf8))
            #expect(listTree(dir).sorted() == ["basemap.vtpk", "out.pmtiles"])
        }
    }

    @Test(Fixtures.required) func exportsTheBackdropInsideAMobileMapPackageToAFolder() throws {
        try withTemporaryDirectory { dir in
            let vtpk = try basemap(in: dir)
            try TestPackages.makeGeoPackage(at: dir + "/data.gpkg")
            var contents = TestPackages.contents(geoPackage: dir + "/data.gpkg")
            contents.files.append(.init(path: "Basemap.vtpk", source: .file(path: vtpk)))
            _ = try PackageWriter.write(contents, to: dir + "/Sample.mmpk")

            let result = try MapbookBinary.run(["tiles", "export", dir + "/Sample.mmpk", "--format", "dir", "-o", dir + "/tiles", "--backdrop", "Basemap"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("from \(dir)/Sample.mmpk[p20/Basemap.vtpk]"))
            let files = listTree(dir + "/tiles").filter { $0.hasSuffix(".pbf") }
            #expect(files == ["0/0/0.pbf", "1/1/0.pbf", "2/2/1.pbf", "3/4/2.pbf", "4/8/5.pbf"])
            #expect(try readFile(dir + "/tiles/4/8/5.pbf") == readFile(Fixtures.path("vtpk-basemapde/sample_pbf/4/8/5.pbf")))
            #expect(FileManager.default.fileExists(atPath: dir + "/tiles/metadata.json"))

            let missing = try MapbookBinary.run(["tiles", "export", dir + "/Sample.mmpk", "--format", "dir", "-o", dir + "/other", "--backdrop", "Streets"])
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("no vector tile package 'Streets'"), "\(missing.stderr)")
        }
    }

    @Test(Fixtures.required) func validateChecksAStandaloneVectorTilePackage() throws {
        try withTemporaryDirectory { dir in
            let vtpk = try basemap(in: dir)
            let result = try MapbookBinary.run(["validate", vtpk])
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(!result.stdout.contains("manifest"), "\(result.stdout)")
        }
    }

    @Test func refusesInputsThatAreNotTilePackagesAndUnknownFormats() throws {
        try withTemporaryDirectory { dir in
            try writeFile(dir + "/notes.txt", "not a package")
            let bad = try MapbookBinary.run(["tiles", "export", dir + "/notes.txt", "--format", "pmtiles", "-o", dir + "/out.pmtiles"])
            #expect(bad.status == 1)
            #expect(bad.stderr.contains("\(dir)/notes.txt"), "\(bad.stderr)")
            #expect(listTree(dir) == ["notes.txt"])

            let usage = try MapbookBinary.run(["tiles", "export", dir + "/notes.txt", "--format", "geojson", "-o", dir + "/out"])
            #expect(usage.status == 64)
        }
    }
}
