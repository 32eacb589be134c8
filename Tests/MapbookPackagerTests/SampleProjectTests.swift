import Foundation
import MapbookData
import MapbookPackage
import MapbookTestSupport
import Testing
@testable import MapbookPackager
import MapbookTiles

/// The sample projects of samples/portland-trees and samples/world, built from the shared
/// fixtures (linked into a temporary data/ folder, read in place).
@Suite struct SampleProjectTests {
    func build(sample: String, files: [String: String]) throws -> (PackagerSummary, MobileMapPackage, String) {
        let dir = try TemporaryDirectory()
        let project = Fixtures.repositoryRoot.appendingPathComponent("samples/\(sample)/project.yaml").path
        try FileManager.default.createDirectory(atPath: dir.path + "/data", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: project, toPath: dir.path + "/project.yaml")
        for (name, fixture) in files {
            try FileManager.default.createSymbolicLink(atPath: dir.path + "/data/" + name, withDestinationPath: Fixtures.path(fixture))
        }
        let output = dir.path + "/out.mmpk"
        let summary = try Packager.build(try Project.load(path: dir.path + "/project.yaml"), output: output, timestamp: 1_700_000_000)
        return (summary, try MobileMapPackage(path: output), dir.path)
    }

    @Test(Fixtures.required)
    func worldBuildsFromNaturalEarthWithComputedRenderers() throws {
        let ne = "natural-earth/110m/"
        let (summary, package, dir) = try build(sample: "world", files: [
            "ne_110m_admin_0_countries.json": ne + "ne_110m_admin_0_countries.json",
            "ne_110m_lakes.json": ne + "ne_110m_lakes.json",
            "ne_110m_rivers_lake_centerlines.json": ne + "ne_110m_rivers_lake_centerlines.json",
            "ne_110m_populated_places_simple.json": ne + "ne_110m_populated_places_simple.json",
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let countries = try #require(summary.layers.first { $0.source == "countries" })
        #expect(countries.summary.kept == 177)
        #expect(summary.layers.first { $0.source == "places" }?.summary.kept == 243)
        let maps = try package.mapEntries.map { try package.map($0) }
        #expect(maps.map(\.item.name) == ["Political", "Population"])
        let political = maps[0].map
        guard case .uniqueValue(let byContinent)? = political.operationalLayers?[0].layerDefinition?.drawingInfo?.renderer else {
            Issue.record("countries are drawn by continent")
            return
        }
        let continents = Set((byContinent.uniqueValueInfos ?? []).compactMap(\.valueText))
        #expect(continents.isSuperset(of: ["Africa", "Europe", "Asia", "South America"]))
        guard case .classBreaks(let byPopulation)? = maps[1].map.operationalLayers?[0].layerDefinition?.drawingInfo?.renderer else {
            Issue.record("countries are classed by population")
            return
        }
        #expect(byPopulation.classBreakInfos?.count == 6)
        #expect(maps.allSatisfy { $0.item.thumbnail?.hasPrefix("data:image/png;base64,") ?? false })
        // Every feature layer lives in data.gpkg, read in place.
        #expect(political.operationalLayers?.allSatisfy { $0.path?.hasPrefix("file:./data.gpkg?table=") ?? false } ?? false)
        // data.gpkg, read in place, carries each layer's defaults for other GIS software.
        let data = try #require(package.archive.entries.first { $0.name.hasSuffix("/data.gpkg") })
        let db = try package.database(data)
        let defaults = try db.query("SELECT m.metadata FROM gpkg_metadata m JOIN gpkg_metadata_reference r ON r.md_file_id = m.id WHERE r.table_name = 'countries'")
        let json = try #require(defaults.first?[0].text)
        #expect(json.contains("\"renderer\"") && json.contains("CONTINENT") && json.contains("\"alias\":\"Name\""))
        // No temporary file is left beside the output.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test(Fixtures.required)
    func worldBackdropIsTiledIntoThePackageAndEveryMapShowsIt() throws {
        let ne = "natural-earth/110m/"
        let (summary, package, dir) = try build(sample: "world", files: [
            "ne_110m_admin_0_countries.json": ne + "ne_110m_admin_0_countries.json",
            "ne_110m_lakes.json": ne + "ne_110m_lakes.json",
            "ne_110m_rivers_lake_centerlines.json": ne + "ne_110m_rivers_lake_centerlines.json",
            "ne_110m_populated_places_simple.json": ne + "ne_110m_populated_places_simple.json",
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tiling = try #require(summary.backdrop)
        #expect(tiling.zooms.map(\.zoom) == Array(0...6))
        #expect(tiling.zooms.allSatisfy { $0.tiles > 0 && $0.largestTile <= 500_000 })
        // Every map's base layer is the backdrop entry, which the package holds stored.
        let entry = try #require(package.archive.entries.first { $0.name.hasSuffix(".vtpk") })
        #expect(entry.method == .stored)
        for mapEntry in package.mapEntries {
            let layers = try package.map(mapEntry).map.baseMap?.baseMapLayers ?? []
            #expect(layers.count == 1 && (layers[0].path ?? "").hasSuffix(entry.name.split(separator: "/").last.map(String.init) ?? "-"), "\(mapEntry.name)")
        }
        // Read in place: per-zoom counts as the tiler reported them, tiles that decode with the
        // layers the style draws, rivers only from their minimum zoom.
        let tiles = try package.tilePackage(entry)
        let levels = try tiles.levels()
        #expect(levels.map(\.featuresKept) == tiling.zooms.map { Optional($0.featuresKept) })
        #expect(levels.map(\.tiles) == tiling.zooms.map(\.tiles))
        let reader = try VectorTilePackageReader(package: tiles)
        var layerNames = Set<String>()
        for coordinate in try reader.tileCoordinates() {
            let data = try #require(try reader.tile(at: coordinate))
            let tile = try VectorTileDecoder().decode(data, source: "\(coordinate)").tile
            for layer in tile.layers {
                layerNames.insert(layer.name)
                if layer.name == "rivers" { #expect(coordinate.z >= 2) }
                if layer.name == "countries" { #expect(layer.keys.allSatisfy { $0 == "NAME" }) }
            }
        }
        #expect(layerNames == ["countries", "lakes", "rivers"])
        let report = PackageValidator.validate(path: dir + "/out.mmpk")
        #expect(report.passes(strict: true), "\(report.diagnostics)")
    }

    @Test(Fixtures.required)
    func portlandTreesBuildsFromTheCSVWithHexEWKB() throws {
        let (summary, package, dir) = try build(sample: "portland-trees", files: [
            "Neighborhood_Boundaries.geojson": "portland/Neighborhood_Boundaries.geojson",
            "pdx_street_trees.csv": "portland/pdx_street_trees.csv",
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(summary.layers.first { $0.source == "trees" }?.summary.kept == 676)
        #expect(summary.layers.first { $0.source == "neighborhoods" }?.summary.kept == 99)
        let trees = try #require(summary.layers.first { $0.source == "trees" })
        #expect(trees.summary.schema.geometryType == .point)
        #expect(try package.mapEntries.map { try package.map($0) }.count == 2)
    }

    @Test func aFailedBuildLeavesNoPackageAndNoTemporaryFile() throws {
        try withTemporaryDirectory { dir in
            try writeFile(dir + "/a.geojson", "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":{\"k\":1},\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}}]}")
            try writeFile(dir + "/p.yaml", """
                title: T
                sources: { a: a.geojson }
                maps:
                  - name: M
                    layers: [ { source: a, renderer: { uniqueValue: { field: nope } } } ]
                """)
            #expect {
                _ = try Packager.build(try Project.load(path: dir + "/p.yaml"), output: dir + "/out.mmpk")
            } throws: { error in
                let text = String(describing: error)
                return text.contains("p.yaml") && text.contains("nope") && text.contains("k")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["a.geojson", "p.yaml"])
        }
    }

    @Test func strictTurnsImportWarningsIntoErrors() throws {
        try withTemporaryDirectory { dir in
            try writeFile(dir + "/a.geojson", "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":{},\"geometry\":null},{\"type\":\"Feature\",\"properties\":{},\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}}]}")
            try writeFile(dir + "/p.yaml", "title: T\nsources: { a: a.geojson }\nmaps: [ { name: M, layers: [ { source: a } ] } ]\n")
            var project = try Project.load(path: dir + "/p.yaml")
            let summary = try Packager.build(project, output: dir + "/ok.mmpk")
            #expect(summary.layers[0].summary.kept == 1)
            #expect(summary.layers[0].summary.report.count(.nullGeometry) == 1)
            project.strict = true
            #expect(throws: ProjectError.self) { _ = try Packager.build(project, output: dir + "/strict.mmpk") }
            #expect(!FileManager.default.fileExists(atPath: dir + "/strict.mmpk"))
        }
    }

    @Test func anUnknownCoordinateSystemIsAClearErrorNamingTheFileKeyAndLine() throws {
        try withTemporaryDirectory { dir in
            try writeFile(dir + "/pts.csv", "x,y,name\n1,2,a\n")
            try writeFile(dir + "/p.yaml", "title: T\nsources:\n  pts: { path: pts.csv, crs: EPSG:999999 }\nmaps: [ { name: M, layers: [pts] } ]\n")
            #expect {
                _ = try Packager.build(try Project.load(path: dir + "/p.yaml"), output: dir + "/o.mmpk")
            } throws: { error in
                let text = String(describing: error)
                return text.contains("p.yaml:3") && text.contains("sources.pts.crs") && text.contains("EPSG:999999")
            }
            // A .prj PROJ cannot read: the error names the shapefile's layer and says what to do.
            try writeFile(dir + "/g.geojson", "{\"type\":\"FeatureCollection\",\"crs\":{\"type\":\"name\",\"properties\":{\"name\":\"urn:ogc:def:crs:EPSG::999999\"}},\"features\":[{\"type\":\"Feature\",\"properties\":{},\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}}]}")
            try writeFile(dir + "/q.yaml", "title: T\nsources:\n  g: g.geojson\nmaps: [ { name: M, layers: [g] } ]\n")
            #expect {
                _ = try Packager.build(try Project.load(path: dir + "/q.yaml"), output: dir + "/o.mmpk")
            } throws: { error in
                let text = String(describing: error)
                return text.contains("q.yaml:3") && text.contains("g.geojson") && text.contains("crs:")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") || $0.hasSuffix(".mmpk") }.isEmpty)
        }
    }

    @Test func aCSVRowWithABadCoordinateIsReportedWithItsLine() throws {
        try withTemporaryDirectory { dir in
            try writeFile(dir + "/pts.csv", "lon,lat,name\n1,2,a\n,3,b\nabc,4,c\n5,6,d\n")
            try writeFile(dir + "/p.yaml", """
                title: T
                sources: { pts: { path: pts.csv, aliases: { name: Site name } } }
                maps: [ { name: M, layers: [ { source: pts, popup: { fields: [name, { name: lon, places: 2, digit_separator: true }] } } ] } ]
                """)
            let summary = try Packager.build(try Project.load(path: dir + "/p.yaml"), output: dir + "/o.mmpk")
            let layer = try #require(summary.layers.first)
            #expect(layer.summary.kept == 2)
            #expect(layer.summary.report.entries[.badCoordinate]?.rows == [3, 4])
            // Pop-up labels come from the aliases; number formats from the project.
            let package = try MobileMapPackage(path: dir + "/o.mmpk")
            let fields = try #require(try package.map(package.mapEntries[0]).map.operationalLayers?[0].popupInfo?.fieldInfos)
            #expect(fields[0].label == "Site name")
            #expect(fields[1].format?["places"] == .integer(2))
            #expect(fields[1].format?["digitSeparator"] == .bool(true))
        }
    }

    @Test(Fixtures.required)
    func pyshpsCorruptShapefileAndNGAsCorruptGeoPackageFailClearly() throws {
        try withTemporaryDirectory { dir in
            for (name, fixture) in [("bad.gpkg", "ngageoint-gpkg/import_db_corrupt.gpkg")] {
                try FileManager.default.createSymbolicLink(atPath: dir + "/" + name, withDestinationPath: Fixtures.path(fixture))
                try writeFile(dir + "/p.yaml", "title: T\nsources:\n  s: \(name)\nmaps: [ { name: M, layers: [s] } ]\n")
                #expect {
                    _ = try Packager.build(try Project.load(path: dir + "/p.yaml"), output: dir + "/o.mmpk")
                } throws: { error in
                    let text = String(describing: error)
                    return text.contains("p.yaml:3") && text.contains(name)
                }
                #expect(!FileManager.default.fileExists(atPath: dir + "/o.mmpk"))
            }
        }
    }
}
