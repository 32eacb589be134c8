import Foundation
import MapbookData
import MapbookPackage
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
