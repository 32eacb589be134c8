import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MapbookPackage
import MapbookPackager
import MapbookSupport
import MapbookTestSupport
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

    /// The packages kept open follow the item: a request that read the item before a new
    /// version was published opens the old version for itself without replacing the new one,
    /// and letting a version go leaves another version kept.
    @Test func anOlderVersionNeverReplacesANewerOneKept() throws {
        let dir = NSTemporaryDirectory() + "mapbook-open-packages-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try TestPackages.makePackage(in: dir)
        let packages = OpenPackages()
        let opening = { try MobileMapPackage(path: path) }
        let newer = try packages.open(id: "item", version: "v2", modified: 2, opening)
        let older = try packages.open(id: "item", version: "v1", modified: 1, opening)
        #expect(older.version == "v1")
        #expect(packages.kept(id: "item", version: "v2") === newer)
        #expect(packages.kept(id: "item", version: "v1") == nil)
        packages.forget("item", version: "v1")
        #expect(packages.kept(id: "item", version: "v2") === newer)
        packages.forget("item", version: "v2")
        #expect(packages.kept(id: "item", version: "v2") == nil)
        // A newer version read later replaces the one kept.
        _ = try packages.open(id: "item", version: "v2", modified: 2, opening)
        let third = try packages.open(id: "item", version: "v3", modified: 3, opening)
        #expect(packages.kept(id: "item", version: "v3") === third)
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

    /// A web map in the map viewer: its page and its online style, for those who may see it,
    /// with the edit tools for those who may edit its service.
    /// Online, the layers' labels are made by the page from the features' fields: the style
    /// keeps the label layers and gives each label's parts; a class with a `where` gives it, and
    /// the service answers which features in view it selects, as the page asks.
    @Test func aWebMapsLabelsAreMadeFromTheFeaturesFields() async throws {
        let fixture = try await PortalFixture()
        let dir = fixture.directory + "/labelled"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let project = try EditableTrees.write(in: dir, labels: #"[{ text: "{common} is {condition}" }, { field: common, where: "dbh > 5" }]"#)
        _ = try Packager.build(try Project.load(path: project), output: dir + "/trees.mmpk", timestamp: 1_700_000_000)
        try await fixture.test { client in
            let id = try await fixture.publish(client, as: "alice", file: dir + "/trees.mmpk")
            let webMap = try #require(try await fixture.portal.store.items().first { $0.item.type == Portal.webMapType && Portal.madeFrom($0) == id }).item.id
            let alice = try await PortalPagesTests.signIn(client, "alice")
            let style = try Self.json(try await client.execute(uri: "/home/webmaps/\(webMap)/style.json", method: .get, headers: alice.headers))
            let trees = try #require(style.object("metadata")?.array("mapbook:online")?.compactMap(\.objectValue).first)
            let source = try #require(trees.string("source"))
            let labels = trees.array("labels")?.compactMap(\.objectValue) ?? []
            #expect(labels.map { $0.string("attribute") } == ["_label0", "_label1"])
            #expect(labels.map { $0.string("where") } == [nil, "dbh > 5"])
            let parts = labels.first?.array("parts")?.compactMap(\.objectValue) ?? []
            #expect(parts.map { $0.string("field") ?? "text:" + ($0.string("text") ?? "") } == ["common", "text: is ", "condition"])
            let symbols = (style.array("layers") ?? []).compactMap(\.objectValue).filter { $0.string("source") == source && $0.string("type") == "symbol" }
            #expect(symbols.map { $0.string("id") } == ["\(source):_label0", "\(source):_label1"])
            #expect(symbols.allSatisfy { $0["source-layer"] == nil })

            // The page's two questions for the view: every feature, and those the `where` selects.
            let url = try #require(trees.string("url")), api = PortalFixture.headers(token: fixture.tokens["alice"])
            let box = "-180,-85,180,85&geometryType=esriGeometryEnvelope&inSR=4326&spatialRel=esriSpatialRelIntersects"
            let all = try Self.json(try await client.execute(uri: "\(url)/query?f=geojson&where=1%3D1&outFields=*&geometry=\(box)", method: .get, headers: api))
            let selected = try Self.json(try await client.execute(uri: "\(url)/query?f=json&where=dbh%20%3E%205&returnIdsOnly=true&geometry=\(box)", method: .get, headers: api))
            let features = all.array("features")?.compactMap(\.objectValue) ?? []
            let large = features.filter { ($0.object("properties")?["dbh"]?.doubleValue ?? 0) > 5 }.compactMap { $0["id"]?.int64Value }
            #expect(!large.isEmpty && large.count < features.count, "some trees are labelled by the second class, not all")
            #expect(Set(selected.array("objectIds")?.compactMap(\.int64Value) ?? []) == Set(large))
        }
    }

    @Test func aWebMapOpensInTheMapViewer() async throws {
        let fixture = try await PortalFixture()
        let file = try PortalSyncTests().trees(fixture).path
        try await fixture.test { client in
            let id = try await fixture.publish(client, as: "alice", file: file)
            let webMaps = try await fixture.portal.store.items().filter { $0.item.type == Portal.webMapType && Portal.madeFrom($0) == id }
            let webMap = try #require(webMaps.first).item.id
            let alice = try await PortalPagesTests.signIn(client, "alice")
            let page = try await client.execute(uri: "/home/webmap.html?id=\(webMap)", method: .get, headers: alice.headers)
            #expect(page.status == .ok)
            #expect(PortalPagesTests.text(page).contains("data-style=\"/home/webmaps/\(webMap)/style.json\"") && PortalPagesTests.text(page).contains("data-edit=\"true\""))
            let item = PortalPagesTests.text(try await client.execute(uri: "/home/item.html?id=\(webMap)", method: .get, headers: alice.headers))
            #expect(item.contains("href=\"/home/webmap.html?id=\(webMap)\""), "the web map's item page opens it")

            let style = try Self.json(try await client.execute(uri: "/home/webmaps/\(webMap)/style.json", method: .get, headers: alice.headers))
            let online = style.object("metadata")?.array("mapbook:online")?.compactMap(\.objectValue) ?? []
            #expect(!online.isEmpty)
            for layer in online {
                let source = try #require(layer.string("source"))
                #expect(layer.string("url")?.hasPrefix("/rest/services/\(id)/FeatureServer/") == true)
                #expect(style.object("sources")?.object(source)?.string("type") == "geojson", "\(source) is filled from its service")
                #expect(style.array("layers")?.contains { $0.objectValue?.string("source") == source && $0.objectValue?["source-layer"] == nil } == true)
            }
            // A package is not a web map.
            #expect(try await client.execute(uri: "/home/webmap.html?id=\(id)", method: .get, headers: alice.headers).status == .notFound)

            // bob: nothing while it is alice's alone; the map without its edit tools once shared.
            let bob = try await PortalPagesTests.signIn(client, "bob")
            let missing = String(repeating: "0", count: 32)
            for path in ["/home/webmap.html?id=%@", "/home/webmaps/%@/style.json"] {
                let hidden = try await client.execute(uri: path.replacingOccurrences(of: "%@", with: webMap), method: .get, headers: bob.headers)
                let absent = try await client.execute(uri: path.replacingOccurrences(of: "%@", with: missing), method: .get, headers: bob.headers)
                #expect(hidden.status == .notFound, "\(path)")
                #expect(PortalPagesTests.text(hidden).replacingOccurrences(of: webMap, with: missing) == PortalPagesTests.text(absent), "\(path)")
            }
            var owner = PortalFixture.headers(token: fixture.tokens["alice"])
            owner[.contentType] = "application/x-www-form-urlencoded"
            for shared in [webMap, id, Portal.serviceItemId(id)] {
                let answer = try await client.execute(
                    uri: "/sharing/rest/content/items/\(shared)/share", method: .post, headers: owner,
                    body: PortalFixture.form(["everyone": "true", "f": "json"]))
                #expect(answer.status == .ok)
            }
            let shown = try await client.execute(uri: "/home/webmap.html?id=\(webMap)", method: .get, headers: bob.headers)
            #expect(shown.status == .ok && PortalPagesTests.text(shown).contains("data-edit=\"false\""))
            #expect(!PortalPagesTests.text(shown).contains("id=\"webmap-add\""))
        }
    }
}

