import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MapbookPackage
import MapbookSupport
import MapbookTiles
import Testing

@testable import MapbookPortalServer

/// An item page's live map preview (issue 34): the package's map as a MapLibre style, its
/// feature layers as tiles made from the stored file (read in place: on disk, or by ranged
/// reads from the bucket when the tests run on S3), and nothing of it for those who may not
/// see the item.
@Suite struct PortalMapPreviewTests {
    static func json(_ response: TestResponse) throws -> JSONObject {
        try #require(try JSONParser.parse(Array(response.body.readableBytesView)).objectValue)
    }

    @Test func aPackagesMapsArePreviewedFromTheStoredFile() async throws {
        let fixture = try await PortalFixture()
        let file = try fixture.package()
        let hasMapLibre = try PortalPages().hasMapLibre
        try await fixture.test { client in
            let id = try await fixture.publish(client, as: "alice", file: file, fields: ["title": "Town"])
            let alice = try await PortalPagesTests.signIn(client, "alice")
            let page = PortalPagesTests.text(try await client.execute(uri: "/home/item.html?id=\(id)", method: .get, headers: alice.headers))
            #expect(page.contains("data-base=\"/home/items/\(id)/maps\"") == hasMapLibre, "a preview exactly when MapLibre is here")
            #expect(page.contains("<option value=\"2\">Second Map</option>") == hasMapLibre, "a map picker for the second map")

            let base = "/home/items/\(id)/maps/1"
            let styleResponse = try await client.execute(uri: base + "/style.json", method: .get, headers: alice.headers)
            #expect(styleResponse.status == .ok)
            let style = try Self.json(styleResponse)
            #expect(style.int("version") == 8)
            let source = try #require(style.object("sources")?.object("layer:points"))
            let template = try #require(source.array("tiles")?.first?.stringValue)
            #expect(template == base + "/layers/points/tiles/{z}/{x}/{y}.pbf")
            #expect(style.array("layers")?.contains { $0.objectValue?.string("source") == "layer:points" } == true)
            let boundsJSON = style.object("metadata")?.array("mapbook:bounds") ?? []
            let bounds = boundsJSON.compactMap { $0.doubleValue }
            #expect(bounds.count == 4 && bounds[0] < bounds[2] && bounds[1] < bounds[3] && bounds[0] > -89 && bounds[2] < -87)

            // The level 11 tile around the sample's points holds every one of them.
            let tileResponse = try await client.execute(uri: base + "/layers/points/tiles/11/522/762.pbf", method: .get, headers: alice.headers)
            #expect(tileResponse.status == .ok)
            let tile = try VectorTileDecoder().decode(Array(tileResponse.body.readableBytesView), source: "tile").tile
            #expect(tile.layers.first?.features.count == 3)

            // Maps that are not there, tiles that cannot be.
            for (path, status) in [("/home/items/\(id)/maps/2/style.json", HTTPResponse.Status.ok), ("/home/items/\(id)/maps/3/style.json", .notFound),
                                   ("/home/items/\(id)/maps/0/style.json", .notFound), (base + "/layers/points/tiles/25/0/0.pbf", .badRequest),
                                   (base + "/layers/points/tiles/2/9/0.pbf", .badRequest), (base + "/layers/nothing/tiles/0/0/0.pbf", .notFound),
                                   (base + "/basemaps/0/tiles/0/0/0.pbf", .notFound)] {
                #expect(try await client.execute(uri: path, method: .get, headers: alice.headers).status == status, "\(path)")
            }

            // Others find nothing of the private item's maps, as for one that does not exist.
            let bob = try await PortalPagesTests.signIn(client, "bob")
            let missing = String(repeating: "0", count: 32)
            for headers in [bob.headers, HTTPFields()] {
                for path in ["/style.json", "/layers/points/tiles/0/0/0.pbf", "/basemaps/0/resources/styles/root.json"] {
                    let hidden = try await client.execute(uri: base + path, method: .get, headers: headers)
                    let absent = try await client.execute(uri: "/home/items/\(missing)/maps/1" + path, method: .get, headers: headers)
                    #expect(hidden.status == .notFound, "\(path)")
                    #expect(PortalPagesTests.text(hidden).replacingOccurrences(of: id, with: missing) == PortalPagesTests.text(absent), "\(path)")
                }
            }
        }
    }
}
