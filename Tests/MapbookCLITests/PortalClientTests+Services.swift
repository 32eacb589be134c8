import Foundation
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import MapbookTiles
import Testing

/// The portal's feature services (issue 33) driven by the clients people use: GDAL's ESRIJSON
/// driver on query URLs (paging included) and the `arcgis` Python client
/// (tools/portal/arcgis_service_check.py), on the Naperville sample's editable valves, with
/// two devices synchronising against the same copy.
extension PortalClientTests {
    static let hasServiceClients = PortalArcGISClientTests.hasArcGIS && ExternalTools.hasOgrinfo

    /// `ogrinfo` on a service URL (the portal's certificate is self-signed): its output.
    func ogrinfo(_ url: String) throws -> String {
        let (status, output) = try ExternalTools.run(ExternalTools.ogrinfo, ["--config", "GDAL_HTTP_UNSAFESSL", "YES", "-ro", "-al", url])
        try #require(status == 0, "ogrinfo \(url): \(output.suffix(800))")
        return output
    }

    @Test(.enabled(if: hasServiceClients || ExternalTools.isCI, "GDAL's ogrinfo or the arcgis Python package is missing; run tools/setup"))
    func gdalAndTheArcGISClientQueryAndEditTheSampleAndDevicesSyncWithThem() throws {
        try withPortal { server, dir in
            let sample = try NapervilleSample.project()
            defer { sample.remove() }
            let package = dir + "/Naperville.mmpk"
            let built = try MapbookBinary.run(["create", sample.path + "/project.yaml", "-o", package])
            try #require(built.status == 0, "\(built.stderr)")
            let (id, a, b) = try onTwoDevices(package, server, dir)
            let token = try #require(try credential(a)["token"] as? String)
            let copy = server.data + "/sync/\(id)/data.gpkg"
            func count(_ sql: String) throws -> Int64 { try SQLiteDatabase(readOnlyPath: copy).scalar(sql)?.int64 ?? -1 }

            // Publishing made the Feature Service item, whose url is the service.
            let search = try Curl.json(["\(server.url)/sharing/rest/search?q=type:%22Feature%20Service%22&f=json&token=\(token)"])
            let item = try #require(search.array("results")?.first?.objectValue, "\(search)")
            let url = try #require(item.string("url"))
            #expect(url == "\(server.url)/rest/services/\(id)/FeatureServer")
            let service = try Curl.json(["\(url)?f=json&token=\(token)"])
            let layer = try #require(service.array("layers")?.first { $0.objectValue?.string("name") == "Water System Valves" }?.objectValue?["id"]?.int64Value)

            // GDAL reads every valve, 100 a page, and a filtered set; the same as the copy holds.
            let valves = try count("SELECT count(*) FROM valves")
            let all = try ogrinfo("\(url)/\(layer)/query?where=1%3D1&outFields=*&resultRecordCount=100&f=json&token=\(token)")
            #expect(all.components(separatedBy: "\nOGRFeature(").count - 1 == Int(valves), "\(all.prefix(600))")
            #expect(all.contains("VALVETYPE (String) = ") && all.contains("POINT (-98"), "\(all.prefix(600))")
            let checks = try ogrinfo("\(url)/\(layer)/query?where=VALVETYPE%3D%27Check%27&outFields=FACILITYID&f=json&token=\(token)")
            #expect(checks.components(separatedBy: "\nOGRFeature(").count - 1 == Int(try count("SELECT count(*) FROM valves WHERE VALVETYPE = 'Check'")))
            // GeoJSON, in WGS84.
            let geojson = try ogrinfo("\(url)/\(layer)/query?objectIds=1&outFields=*&f=geojson&token=\(token)")
            #expect(geojson.contains("POINT (-88."), "\(geojson.suffix(400))")
            // A hostile where is refused with the API's error, and the table is as it was.
            let hostile = try Curl.json(["\(url)/\(layer)/query?where=1%3D1%3B%20DROP%20TABLE%20valves&f=json&token=\(token)"])
            #expect(hostile.object("error")?["code"] == 400, "\(hostile)")
            #expect(try count("SELECT count(*) FROM valves") == valves)
            // A date far out of range is refused per edit, not a crash.
            let far = try Curl.json([
                "-X", "POST", "--data-urlencode", #"updates=[{"attributes":{"fid":1,"LASTEXER":1e300}}]"#, "--data-urlencode", "f=json",
                "--data-urlencode", "token=\(token)", "\(url)/\(layer)/applyEdits",
            ])
            #expect(far.array("updateResults")?.first?.objectValue?.object("error")?["code"] == 1011, "\(far)")

            // Device B edits a valve offline before anyone edits online.
            let edited = try MapbookBinary.run(
                ["edit", "update", b + "/downloads/\(id).mmpk", "--layer", "valves", "2", "--set", "TURNS=77"], environment: ["MAPBOOK_HOME": b])
            #expect(edited.status == 0, "\(edited.stderr)")

            // A second service, the trees with their inspections, one recorded.
            let trees = try EditableTrees.write(in: dir + "/trees", related: true)
            _ = try MapbookBinary.run(["create", trees, "-o", dir + "/Trees.mmpk"])
            let treesId = try #require(try publish(dir + "/Trees.mmpk", home: a)["itemId"] as? String)
            let c = dir + "/c"
            try signIn(server, home: c)
            _ = try mapbook(["portal", "download", treesId], home: c)
            _ = try MapbookBinary.run(
                ["edit", "relate", c + "/downloads/\(treesId).mmpk", "--layer", "trees", "1", "--table", "inspections", "--set", "result=Prune"],
                environment: ["MAPBOOK_HOME": c])
            #expect(try mapbook(["sync", treesId], home: c).status == 0)

            // The arcgis client queries and edits; it leaves valve WV-ONLINE.
            let script = Fixtures.repositoryRoot.appendingPathComponent("tools/portal/arcgis_service_check.py").path
            let (status, output) = try ExternalTools.run(
                ExternalTools.python,
                [script, server.url, Self.alice.name, Self.alice.password, Self.bob.name, Self.bob.password, "Water System Valves", "Street Trees"])
            #expect(status == 0 && output.contains("all checks passed"), "\(output.suffix(1500))")
            #expect(try count("SELECT count(*) FROM valves WHERE FACILITYID = 'WV-ONLINE'") == 1)

            // A's next sync receives the online edit; B's offline edit shows in the online query.
            let synced = try mapbook(["sync"], home: a)
            #expect(synced.status == 0, "\(synced.stderr)")
            let onA = try SQLiteDatabase(readOnlyPath: try workingCopy(a)).scalar("SELECT TURNS FROM valves WHERE FACILITYID = 'WV-ONLINE'")
            #expect(onA == .integer(40), "the online add and update reached device A")
            let fromB = try mapbook(["sync"], home: b)
            #expect(fromB.status == 0, "\(fromB.stderr)")
            let online = try Curl.json(["\(url)/\(layer)/query?objectIds=2&outFields=TURNS,last_edited_user&f=json&token=\(token)"])
            #expect(online.array("features")?.first?.objectValue?.object("attributes")?["TURNS"] == 77, "\(online)")

            // Bob, with whom nothing is shared, is refused; anonymous callers are asked to sign in.
            let bobHome = dir + "/bob"
            try signIn(server, home: bobHome, user: Self.bob)
            let bobToken = try #require(try credential(bobHome)["token"] as? String)
            #expect(try Curl.json(["\(url)/\(layer)/query?where=1%3D1&f=json&token=\(bobToken)"]).object("error")?["code"] == 403)
            #expect(try Curl.json(["\(url)/\(layer)/query?where=1%3D1&f=json"]).object("error")?["code"] == 499)
            let bobEdit = try Curl.json(["-X", "POST", "--data-urlencode", "deletes=2", "--data-urlencode", "f=json", "--data-urlencode", "token=\(bobToken)", "\(url)/\(layer)/applyEdits"])
            #expect(bobEdit.object("error")?["code"] == 403, "\(bobEdit)")
            #expect(try count("SELECT count(*) FROM valves WHERE fid = 2") == 1)
        }
    }

    /// Publishing the sample makes a Web Map item per map, whose layers are the feature
    /// service's (every layer the map shows; those without an edit schema read-only) and whose
    /// base map is the package's backdrop as a vector tile service, read in place; publishing
    /// again keeps each layer's number.
    @Test func webMapsPointAtTheServiceAndTheBackdropIsAVectorTileService() throws {
        try withPortal { server, dir in
            let sample = try NapervilleSample.project()
            defer { sample.remove() }
            let package = dir + "/Naperville.mmpk"
            try #require(try MapbookBinary.run(["create", sample.path + "/project.yaml", "-o", package]).status == 0)
            try signIn(server, home: dir + "/a")
            let id = try #require(try publish(package, home: dir + "/a")["itemId"] as? String)
            let token = try #require(try credential(dir + "/a")["token"] as? String)
            let found = try Curl.json(["\(server.url)/sharing/rest/search?q=type:%22Web%20Map%22&f=json&token=\(token)"])
            let maps = found.array("results")?.compactMap(\.objectValue) ?? []
            let opened = try MobileMapPackage(path: package)
            #expect(Set(maps.compactMap { $0.string("title") }) == Set(try opened.mapEntries.map { try opened.map($0).item.title ?? "" }))
            let service = "\(server.url)/rest/services/\(id)/FeatureServer"
            let description = try Curl.json(["\(service)?f=json&token=\(token)"])
            let numbers = Dictionary(uniqueKeysWithValues: (description.array("layers") ?? []).compactMap(\.objectValue).compactMap { o in o.string("name").map { ($0, o["id"]) } })
            #expect(numbers["Water System Valves"] != nil && numbers["Water Mains"] != nil, "\(description)")

            var layerCount = 0
            for map in maps {
                let data = try Curl.json(["\(server.url)/sharing/rest/content/items/\(map.string("id") ?? "")/data?token=\(token)"])
                for layer in (data.array("operationalLayers") ?? []).compactMap(\.objectValue) {
                    layerCount += 1
                    let url = try #require(layer.string("url"))
                    #expect(url.hasPrefix(service + "/") && layer["path"] == nil && layer.string("layerType") == "ArcGISFeatureLayer", "\(layer)")
                    let described = try Curl.json(["\(url)?f=json&token=\(token)"])
                    #expect(described.string("name") == layer.string("title"), "\(described)")
                    let editable = layer.string("title") == "Water System Valves"
                    #expect(described.string("capabilities") == (editable ? "Create,Delete,Query,Update,Editing" : "Query"))
                }
                let style = try #require(data.object("baseMap")?.array("baseMapLayers")?.first?.objectValue?.string("styleUrl"))
                #expect(style == "\(server.url)/rest/services/\(id)/VectorTileServer/resources/styles/root.json")
                #expect(try Curl.json(["\(style)?token=\(token)"]).array("layers")?.isEmpty == false)
            }
            #expect(layerCount > 3)
            // A read-only layer takes no edits.
            let mains = try #require(numbers["Water Mains"]??.int64Value)
            let refused = try Curl.json(["-X", "POST", "--data-urlencode", "deletes=1", "--data-urlencode", "f=json", "--data-urlencode", "token=\(token)", "\(service)/\(mains)/applyEdits"])
            #expect(refused.object("error")?["code"] == 400, "\(refused)")

            // The vector tile service: its description, and tiles as the package holds them.
            let tiles = "\(server.url)/rest/services/\(id)/VectorTileServer"
            let root = try Curl.json(["\(tiles)?f=json&token=\(token)"])
            #expect(root.array("tiles") == ["tile/{z}/{y}/{x}.pbf"] && root.object("tileInfo") != nil)
            let reader = try VectorTilePackageReader(path: package)
            let coordinates = try reader.tileCoordinates()
            for coordinate in [coordinates.first, coordinates.last, coordinates[coordinates.count / 2]].compactMap({ $0 }) {
                let file = dir + "/tile.pbf"
                try Curl.text(["-o", file, "\(tiles)/tile/\(coordinate.z)/\(coordinate.y)/\(coordinate.x).pbf?token=\(token)"])
                #expect(try readFile(file) == (try reader.tile(at: coordinate)), "\(coordinate)")
            }
            #expect(try Curl.text(["-o", "/dev/null", "-w", "%{http_code}", "\(tiles)/resources/sprites/sprite.json?token=\(token)"]) == "200")

            // Published again: the same numbers.
            _ = try publish(package, home: dir + "/a")
            let again = try Curl.json(["\(service)?f=json&token=\(token)"])
            let renumbered = Dictionary(uniqueKeysWithValues: (again.array("layers") ?? []).compactMap(\.objectValue).compactMap { o in o.string("name").map { ($0, o["id"]) } })
            #expect(renumbered == numbers)
        }
    }
}
