import Foundation
import MapbookData
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
@testable import MapbookSearch

/// Real data imported into a GeoPackage and indexed, as the packager does, for the search tests.
final class SearchFixture {
    let directory: TemporaryDirectory
    let geoPackage: String
    private(set) var locators: [SingleFieldLocator] = []

    init() throws {
        directory = try TemporaryDirectory()
        geoPackage = directory.path + "/data.gpkg"
    }

    deinit { directory.remove() }

    /// Imports sources (table name, reader) into the GeoPackage.
    func importLayers(_ layers: [(String, FeatureReader)]) throws {
        let writer = try GeoPackageWriter(path: geoPackage, crs: .webMercator, timestamp: 1_700_000_000)
        for (table, reader) in layers {
            _ = try LayerImporter(target: .webMercator).run(reader, table: table, writer: writer, identifier: table, description: "", aliases: [:], metadata: "{}")
        }
        try writer.close()
    }

    /// Builds a participant's index and opens it.
    @discardableResult
    func addLocator(_ spec: LocatorSpec) throws -> SingleFieldLocator {
        let indexPath = directory.path + "/\(spec.name).sqlite"
        let built = try LocatorBuilder.build(spec, geoPackage: geoPackage, indexPath: indexPath)
        let locator = try SingleFieldLocator(
            definition: built.definition, index: try LocatorIndex(path: indexPath), data: try SQLiteDatabase(readOnlyPath: geoPackage))
        locators.append(locator)
        return locator
    }

    var composite: CompositeLocator {
        CompositeLocator(
            definition: CompositeDefinition(name: "Test", participants: locators.enumerated().map { .init(name: $1.name, path: $1.name, order: $0 + 1) }),
            participants: locators, path: directory.path)
    }

    /// Portland street trees: a locator on addresses and one on common names.
    static func portland() throws -> SearchFixture {
        let f = try SearchFixture()
        try f.importLayers([("trees", try CSVReader(path: Fixtures.path("portland/pdx_street_trees.csv"), options: CSVOptions(geometry: "the_geom")))])
        try f.addLocator(LocatorSpec(name: "Addresses", layer: "trees", field: "address", outputFields: ["common", "condition"], isAddress: true))
        try f.addLocator(LocatorSpec(name: "Species", layer: "trees", field: "common", outputFields: ["scientific"]))
        return f
    }
}

extension SearchFixture {
    /// Natural Earth places (ranked by population) and countries.
    static func naturalEarth() throws -> SearchFixture {
        let f = try SearchFixture()
        try f.importLayers([
            ("places", try GeoJSONReader(path: Fixtures.path("natural-earth/110m/ne_110m_populated_places.json"))),
            ("countries", try GeoJSONReader(path: Fixtures.path("natural-earth/110m/ne_110m_admin_0_countries.json"))),
        ])
        try f.addLocator(LocatorSpec(name: "Places", layer: "places", field: "NAME", rankField: "POP_MAX", outputFields: ["ADM0NAME", "POP_MAX"]))
        try f.addLocator(LocatorSpec(name: "Countries", layer: "countries", field: "NAME", outputFields: ["CONTINENT"]))
        return f
    }

    /// TIGER 2018 roads of Manassas Park, Virginia: real street names on lines.
    static func tigerRoads() throws -> SearchFixture {
        let f = try SearchFixture()
        try f.importLayers([("roads", try GeoJSONReader(path: Fixtures.path("tippecanoe-edge/tests/tl_2018_51685_roads/in.json")))])
        try f.addLocator(LocatorSpec(name: "Streets", layer: "roads", field: "FULLNAME", outputFields: ["MTFCC"]))
        return f
    }

    /// Generated hydrants HYD-00001... (00124 left out) and valves VLV-00100...: IDs.
    static func assetIDs() throws -> SearchFixture {
        let f = try SearchFixture()
        func geojson(_ prefix: String, _ numbers: [Int], lon: Double) -> String {
            let features = numbers.map { n in
                let id = "\(prefix)-" + String(repeating: "0", count: 5 - String(n).count) + String(n)
                return "{\"type\":\"Feature\",\"properties\":{\"FACILITYID\":\"\(id)\",\"SIZE\":\(n % 12)},\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(lon + Double(n) * 1e-4),41.77]}}"
            }
            return "{\"type\":\"FeatureCollection\",\"features\":[\(features.joined(separator: ","))]}"
        }
        let hydrants = f.directory.path + "/hydrants.geojson", valves = f.directory.path + "/valves.geojson"
        try geojson("HYD", (1...500).filter { $0 != 124 }, lon: -88.15).write(toFile: hydrants, atomically: true, encoding: .utf8)
        try geojson("VLV", Array(100...200), lon: -88.16).write(toFile: valves, atomically: true, encoding: .utf8)
        try f.importLayers([("hydrants", try GeoJSONReader(path: hydrants)), ("valves", try GeoJSONReader(path: valves))])
        try f.addLocator(LocatorSpec(name: "Hydrants", layer: "hydrants", field: "FACILITYID", outputFields: ["SIZE"]))
        try f.addLocator(LocatorSpec(name: "Valves", layer: "valves", field: "FACILITYID"))
        return f
    }
}
