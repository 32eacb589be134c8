import Foundation
import MapbookData
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import MapbookTiles
import Testing

/// Map areas taken offline on demand (issue 33): `mapbook library take-offline` on the
/// Naperville sample's web map makes a package holding the area's features, the backdrop's
/// tiles for the area up to the scale and locators of what is kept; an edit synchronised
/// from it reaches the online layer; the job's resource answers only its owner.
extension PortalClientTests {
    /// West, south, east, north: a part of the sample with valves inside and outside.
    static let area = [-88.165, 41.745, -88.15, 41.755]

    /// Valves of a package's data: FACILITYID, fid and place (longitude, latitude).
    func valves(_ path: String) throws -> [(id: String, fid: Int64, lon: Double, lat: Double)] {
        let package = try MobileMapPackage(path: path)
        let table = try FeatureTable(database: try package.database(try #require(package.dataEntry)), table: "valves")
        return try table.allFeatures(fields: ["FACILITYID"]).collect().compactMap { feature in
            guard case .point(let p)? = feature.geometry?.shape else { return nil }
            let place = WebMercator.unproject(x: p.x, y: p.y)
            return (feature.values.first?.displayText ?? "", feature.id, place.longitude, place.latitude)
        }
    }

    static func inArea(_ lon: Double, _ lat: Double) -> Bool {
        lon >= area[0] && lon <= area[2] && lat >= area[1] && lat <= area[3]
    }

    @Test func aMapAreaTakenOfflineHoldsTheAreaAndItsEditsReachTheService() throws {
        try withPortal { server, dir in
            let sample = try NapervilleSample.project()
            defer { sample.remove() }
            let package = dir + "/Naperville.mmpk"
            try #require(try MapbookBinary.run(["create", sample.path + "/project.yaml", "-o", package]).status == 0)
            let a = dir + "/a", b = dir + "/b"
            try signIn(server, home: a)
            let id = try #require(try publish(package, home: a)["itemId"] as? String)
            let token = try #require(try credential(a)["token"] as? String)
            let maps = try Curl.json(["\(server.url)/sharing/rest/search?q=type:%22Web%20Map%22&f=json&token=\(token)"]).array("results") ?? []
            let webMap = try #require(maps.first?.objectValue?.string("id"))

            // A field device takes the area offline from the web map.
            try signIn(server, home: b)
            let areaText = Self.area.map { String($0) }.joined(separator: ",")
            let taken = try mapbook(["library", "take-offline", webMap, "--area=\(areaText)", "--max-scale", "5000", "--json"], home: b)
            #expect(taken.status == 0, "\(taken.stderr)")
            #expect(taken.stderr.contains("features inside the area"), "\(taken.stderr)")
            let record = try jsonObject(taken.stdout)
            let areaId = try #require(record["itemId"] as? String)
            #expect(areaId != id)
            let areaPackage = b + "/downloads/\(areaId).mmpk"
            // Made and signed by the portal, whose key the device trusts from its sign-in.
            let validated = try mapbook(["validate", areaPackage], home: b)
            #expect(validated.status == 0 && !validated.stdout.contains("warning:") && validated.stdout.contains("signature.trusted"), "\(validated.stdout)")

            // Its valves are those of the area, as the service has them.
            let all = try valves(package), kept = try valves(areaPackage)
            let inside = all.filter { Self.inArea($0.lon, $0.lat) }
            #expect(!inside.isEmpty && inside.count < all.count)
            #expect(Set(kept.map(\.id)) == Set(inside.map(\.id)))

            // The backdrop: no tile past the scale's level, none far from the area, fewer than before.
            let last = VectorTilePackageCut.level(forScale: 5000)
            let original = try VectorTilePackageReader(path: package).tileCoordinates()
            let tiles = try VectorTilePackageReader(path: areaPackage).tileCoordinates()
            #expect(!tiles.isEmpty && tiles.count < original.count)
            let mercator = WebMercator.project(BoundingBox(minX: Self.area[0], minY: Self.area[1], maxX: Self.area[2], maxY: Self.area[3]))
            for tile in tiles {
                #expect(tile.z <= last)
                let box = FeatureTileEncoder.box(of: tile)
                let grown = BoundingBox(minX: box.minX - box.width, minY: box.minY - box.height, maxX: box.maxX + box.width, maxY: box.maxY + box.height)
                #expect(tile.z < 5 || grown.intersects(mercator), "\(tile)")
            }

            // Search finds a valve inside and not one outside.
            let outside = try #require(all.first { !Self.inArea($0.lon, $0.lat) })
            let found = try MapbookBinary.run(["search", areaPackage, inside[0].id])
            #expect(found.stdout.contains(inside[0].id), "\(found.stdout)")
            let missing = try MapbookBinary.run(["search", areaPackage, outside.id])
            #expect(!missing.stdout.contains(outside.id), "\(missing.stdout)")

            // An edit made in the area's package reaches the online layer.
            let valve = inside[0]
            let edited = try mapbook(["edit", "update", areaPackage, "--layer", "valves", String(valve.fid), "--set", "TURNS=55"], home: b)
            #expect(edited.status == 0, "\(edited.stderr)")
            let synced = try mapbook(["sync", areaId], home: b)
            #expect(synced.status == 0, "\(synced.stderr)")
            let service = "\(server.url)/rest/services/\(id)/FeatureServer"
            let layers = try Curl.json(["\(service)?f=json&token=\(token)"]).array("layers") ?? []
            let valvesLayer = try #require(layers.compactMap(\.objectValue).first { $0.string("name") == "Water System Valves" }?["id"]?.int64Value)
            let online = try Curl.json(["\(service)/\(valvesLayer)/query?objectIds=\(valve.fid)&outFields=TURNS&f=json&token=\(token)"])
            #expect(online.array("features")?.first?.objectValue?.object("attributes")?["TURNS"]?.int64Value == 55, "\(online)")
            // The area is synchronised to its source: it is not published on its own.
            #expect(try mapbook(["portal", "publish", "--from-sync", areaId], home: b).status != 0)

            // The job's resource, as the API's clients poll it; bob does not see alice's job.
            let task = "\(server.url)/rest/services/System/OfflinePackaging/GPServer/PackageMap"
            let submitted = try Curl.json([
                "-X", "POST", "--data-urlencode", "webmapItemId=\(webMap)", "--data-urlencode", "areaOfInterest=\(areaText)", "--data-urlencode", "f=json",
                "--data-urlencode", "token=\(token)", "\(task)/submitJob",
            ])
            let job = try #require(submitted.string("jobId"), "\(submitted)")
            var status = ""
            for _ in 0..<300 where !["esriJobSucceeded", "esriJobFailed"].contains(status) {
                Thread.sleep(forTimeInterval: 0.1)
                status = try Curl.json(["\(task)/jobs/\(job)?f=json&token=\(token)"]).string("jobStatus") ?? ""
            }
            #expect(status == "esriJobSucceeded")
            let result = try Curl.json(["\(task)/jobs/\(job)/results/packageItemId?f=json&token=\(token)"])
            #expect(result.string("value").map { $0.count == 32 } == true, "\(result)")
            let bobHome = dir + "/bob"
            try signIn(server, home: bobHome, user: Self.bob)
            let bobToken = try #require(try credential(bobHome)["token"] as? String)
            #expect(try Curl.json(["\(task)/jobs/\(job)?f=json&token=\(bobToken)"]).object("error")?["code"] == 404)
            // Nor can bob take offline what he cannot see.
            let refused = try mapbook(["library", "take-offline", webMap, "--area=\(areaText)"], home: bobHome)
            #expect(refused.status != 0)
            // From a map page of `mapbook serve` on the device: the area on screen taken offline.
            if ServeBrowserTests.hasBrowser || ExternalTools.isCI {
                let script = Fixtures.repositoryRoot.appendingPathComponent("tools/web/sync_check.py").path
                let (status, output) = try ExternalTools.run(ExternalTools.python, [script, MapbookBinary.path, b, dir + "/shots", "offline"])
                #expect(status == 0 && output.contains("all checks passed"), "\(output.suffix(3000))")
            }
            // A malformed area or scale is refused before any job starts, and the portal stays up.
            let refusals = [
                ["areaOfInterest=1,2"], ["areaOfInterest=\(areaText)", "maxScale=1e-301"],
                [#"areaOfInterest={"xmin":-1e400,"ymin":41.7,"xmax":-88.1,"ymax":41.8}"#], ["areaOfInterest=-200,41.7,-88.1,41.8"],
            ]
            for fields in refusals {
                let bad = try Curl.json(
                    ["-X", "POST", "--data-urlencode", "webmapItemId=\(webMap)", "--data-urlencode", "f=json", "--data-urlencode", "token=\(token)"]
                        + fields.flatMap { ["--data-urlencode", $0] } + ["\(task)/submitJob"])
                #expect(bad.object("error")?["code"] == 400, "\(fields): \(bad)")
            }
            #expect(try Curl.json(["\(server.url)/sharing/rest?f=json"])["currentVersion"] != nil)
        }
    }
}
