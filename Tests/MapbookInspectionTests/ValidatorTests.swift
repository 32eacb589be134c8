import Foundation
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing
import MapbookInspection

@Suite struct ValidatorTests {
    @Test func aPackageWeWroteIsClean() throws {
        try withTemporaryDirectory { dir in
            let path = try TestPackages.makePackage(in: dir)
            let report = PackageValidator.validate(path: path, options: ValidationOptions(now: 1_795_305_600_000))
            // Clean but for the note that nothing signed it.
            #expect(report.diagnostics.map(\.code) == ["signature.none"], "\(report.diagnostics)")
            #expect(report.passes(strict: true))
            #expect(report.entriesChecked == 7)
        }
    }

    @Test(arguments: BadPackage.allCases)
    func reportsEachBadInput(_ bad: BadPackage) throws {
        try withTemporaryDirectory { dir in
            let path = try bad.make(in: dir)
            let report = PackageValidator.validate(path: path)
            #expect(!report.passes(strict: false))
            let finding = report.diagnostics.first { $0.code == bad.expectedCode && $0.severity == .error }
            #expect(finding != nil, "expected \(bad.expectedCode) in \(report.diagnostics)")
            #expect(finding.map { "\($0)".contains(bad.expectedWords) } == true, "\(String(describing: finding))")
        }
    }

    @Test func reportsEveryFindingNotJustTheFirst() throws {
        try withTemporaryDirectory { dir in
            let good = try TestPackages.makePackage(in: dir, name: "good.mmpk")
            var entries = try TestPackages.rawEntries(of: good)
            entries[entries.firstIndex { $0.name == "p20/First Map.mmap" }!].crc = 1
            entries[entries.firstIndex { $0.name == "p20/Second Map.mmap" }!].data = Array("[]".utf8)
            entries.append(.init(name: "../up", text: "x"))
            entries.append(.init(name: "p20/extra.txt", text: "not in the manifest"))
            try RawZip(entries).write(to: dir + "/many.mmpk")
            let codes = Set(PackageValidator.validate(path: dir + "/many.mmpk").diagnostics.map(\.code))
            #expect(codes.isSuperset(of: ["zip.crc", "map.invalid", "name.unsafe", "manifest.unlisted"]))
        }
    }

    @Test func detectsAnEntryChangedAfterPackaging() throws {
        try withTemporaryDirectory { dir in
            let good = try TestPackages.makePackage(in: dir, name: "good.mmpk")
            var entries = try TestPackages.rawEntries(of: good)
            let i = entries.firstIndex { $0.name == "esriinfo/iteminfo.xml" }!
            entries[i].data = Array(String(decoding: entries[i].data, as: UTF8.self).replacingOccurrences(of: "Sample Package", with: "Sample Packagf").utf8)
            try RawZip(entries).write(to: dir + "/edited.mmpk")
            let report = PackageValidator.validate(path: dir + "/edited.mmpk")
            #expect(report.diagnostics.contains { $0.code == "manifest.hash" && $0.entry == "esriinfo/iteminfo.xml" })
            // The CRC was recomputed by the editor, so only the manifest can tell.
            #expect(!report.diagnostics.contains { $0.code == "zip.crc" })
        }
    }

    @Test func checksBookmarksAndExpiration() throws {
        try withTemporaryDirectory { dir in
            try TestPackages.makeGeoPackage(at: dir + "/data.gpkg")
            var contents = TestPackages.contents(geoPackage: dir + "/data.gpkg")
            var map = contents.maps[0].map
            map.map.bookmarks = [
                Bookmark(name: "Inverted", extent: Envelope(xmin: 10, ymin: 10, xmax: 0, ymax: 20, spatialReference: .webMercator), viewpoint: nil),
                Bookmark(name: "Nowhere", extent: nil, viewpoint: nil),
                Bookmark(name: "Off the globe", extent: Envelope(xmin: 100, ymin: 95, xmax: 120, ymax: 99, spatialReference: .wgs84), viewpoint: nil),
            ]
            contents.maps[0].map = map
            contents.manifest.expiration = Expiration(dateTime: 1_000, kind: .preventExpiredAccess, message: nil)
            _ = try PackageWriter.write(contents, to: dir + "/b.mmpk")
            let report = PackageValidator.validate(path: dir + "/b.mmpk")
            let bookmarkErrors = report.diagnostics.filter { $0.code == "bookmark.extent" && $0.severity == .error }
            #expect(bookmarkErrors.count == 3)
            #expect(report.diagnostics.contains { $0.code == "expiration.date" })
            #expect(report.diagnostics.contains { $0.code == "expiration.expired" && $0.message.contains("refuse") })
        }
    }

    @Test func findsTablesThatAreNotInTheGeoPackage() throws {
        try withTemporaryDirectory { dir in
            try TestPackages.makeGeoPackage(at: dir + "/data.gpkg")
            var contents = TestPackages.contents(geoPackage: dir + "/data.gpkg")
            contents.maps[1].map.map.operationalLayers![0].path = "file:./data.gpkg?table=pipes"
            _ = try PackageWriter.write(contents, to: dir + "/t.mmpk")
            let report = PackageValidator.validate(path: dir + "/t.mmpk")
            #expect(report.diagnostics.contains { $0.code == "map.path" && $0.message.contains("'pipes'") })
        }
    }

    @Test func saysWhenThereIsNoFile() {
        let report = PackageValidator.validate(path: "/nonexistent/nowhere.mmpk")
        #expect(report.diagnostics.map(\.code) == ["file.open"])
        #expect(report.diagnostics.first?.message.contains("nowhere.mmpk") == true)
    }

    @Test func mapNotesWithInlineFeaturesNeedNoPath() throws {
        try withTemporaryDirectory { dir in
            try TestPackages.makeGeoPackage(at: dir + "/data.gpkg")
            var contents = TestPackages.contents(geoPackage: dir + "/data.gpkg")
            var notes = OperationalLayer(json: ["id": "notes", "title": "Map Notes", "layerType": "ArcGISFeatureLayer", "featureCollection": ["layers": []]])
            notes.visibility = true
            contents.maps[0].map.map.operationalLayers!.append(notes)
            _ = try PackageWriter.write(contents, to: dir + "/n.mmpk")
            #expect(PackageValidator.validate(path: dir + "/n.mmpk").count(.error) == 0)
        }
    }

    @Test func anEsriStylePackageWithoutHashesHasNoErrors() throws {
        try withTemporaryDirectory { dir in
            // The shape of a package made by ArcGIS Pro: a p14 folder, no mapbook section,
            // Esri item ids in layer paths, a geodatabase, an Esri locator.
            try TestPackages.makeGeoPackage(at: dir + "/data.gpkg")
            let good = try TestPackages.makePackage(in: dir, name: "good.mmpk")
            var entries = try TestPackages.rawEntries(of: good).filter { !$0.name.hasSuffix(".info") && !$0.name.hasPrefix("p20/") }
            var manifest = PackageManifest(value: try JSONParser.parse(try ZipArchive(path: good).read(try ZipArchive(path: good).entry(named: "Sample.info")!)))
            manifest.original["mapbook"] = nil
            manifest.mapbook = nil
            manifest.original["commonPackagingVersion"] = "3.0"
            manifest.maps = ["Map"]
            entries.append(.init(name: "Sample.info", data: JSONWriter.bytes(manifest.jsonValue)))
            let map = #"{"map": {"operationalLayers": [{"id": "a", "title": "Cities", "layerType": "ArcGISFeatureLayer", "path": "file:./data.gpkg?table=points"}], "spatialReference": {"wkid": 102100, "latestWkid": 3857}, "bookmarks": []}, "item": {"title": "Map"}}"#
            entries.append(.init(name: "p14/Map.mmap", text: map))
            entries.append(.init(name: "p14/data.gpkg", data: try readFile(dir + "/data.gpkg")))
            entries.append(.init(name: "p14/loc/Addresses.loc", text: "Category = Address\nDescription = Addresses\n"))
            try RawZip(entries).write(to: dir + "/esri.mmpk")
            let report = PackageValidator.validate(path: dir + "/esri.mmpk")
            #expect(report.count(.error) == 0, "\(report.diagnostics)")
            #expect(report.diagnostics.contains { $0.code == "manifest.no-hashes" && $0.severity == .note })
            let package = try MobileMapPackage(path: dir + "/esri.mmpk")
            #expect(package.folder == "p14")
        }
    }
}
