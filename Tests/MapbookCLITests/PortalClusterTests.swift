import Foundation
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing

/// The production shape (issue 20): three portal processes behind nginx, sharing PostgreSQL
/// and an S3 bucket (OpenStack Swift), all on loopback (tools/portal/cluster.sh). Nothing a
/// request needs lives in one process: an item made at one is read at another, an upload's
/// parts go to all three, a token revoked at one is refused at the others; the real `arcgis`
/// client and our own pass through the balancer.
@Suite(.serialized) struct PortalClusterTests {
    static let enabled = ConditionTrait.enabled(
        if: (FileManager.default.isExecutableFile(atPath: PostgresServer.initdb) && FileManager.default.isExecutableFile(atPath: S3Server.proxy)
            && FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx")) || ExternalTools.isCI,
        "PostgreSQL 15, OpenStack Swift or nginx is not installed; run tools/setup")

    @Test(enabled)
    func nothingLivesInOneProcess() throws {
        try withTemporaryDirectory { dir in
            let cluster = try PortalCluster(users: [("alice", "alice-password-1", true), ("bob", "bob-password-1", false)])
            let a = try cluster.processURL(1), b = try cluster.processURL(2), c = try cluster.processURL(3)
            let api = "/sharing/rest"

            // A token issued by A works at B; revoked at A, it is refused at B and C. (Uploads carry
            // it in the query: a multipart body is refused before it is read without one.)
            let token = try #require(try Curl.json(["-d", "username=alice&password=alice-password-1&expiration=60&f=json", a + api + "/generateToken"]).string("token"))
            #expect(try Curl.json([b + api + "/community/self?f=json&token=" + token]).string("username") == "alice")

            // An upload in parts: begun at A, part 1 to A, 2 to B, 3 to C, committed at B.
            let package = try TestPackages.makePackage(in: dir, name: "Cluster Trees.mmpk")
            let bytes = try readFile(package)
            let cut = [0, bytes.count / 3, 2 * bytes.count / 3, bytes.count]
            let added = try Curl.json([
                "-F", "f=json", "-F", "token=\(token)", "-F", "multipart=true", "-F", "fileName=Cluster Trees.mmpk", "-F", "type=Mobile Map Package",
                "-F", "title=Cluster trees", a + api + "/content/users/alice/addItem?token=" + token,
            ])
            let id = try #require(added.string("id"), "\(added)")
            for (n, base) in [a, b, c].enumerated() {
                let part = dir + "/part\(n + 1)"
                try Data(bytes[cut[n]..<cut[n + 1]]).write(to: URL(fileURLWithPath: part))
                let answer = try Curl.json(["-F", "f=json", "-F", "token=\(token)", "-F", "partNum=\(n + 1)", "-F", "file=@\(part)", base + api + "/content/users/alice/items/\(id)/addPart?token=" + token])
                #expect(answer["success"]?.boolValue == true, "part \(n + 1) at process \(n + 1): \(answer)")
            }
            // Invisible everywhere until committed.
            #expect(try Curl.json([c + api + "/content/items/\(id)?f=json&token=" + token]).object("error") != nil)
            let committed = try Curl.json(["-F", "f=json", b + api + "/content/users/alice/items/\(id)/commit?token=" + token])
            #expect(committed["success"]?.boolValue == true, "\(committed)")
            #expect(try Curl.json([c + api + "/content/users/alice/items/\(id)/status?f=json&token=" + token]).string("status") == "completed")

            // Read at C, found by a search at A, downloaded whole through nginx and in a range at B.
            #expect(try Curl.json([c + api + "/content/items/\(id)?f=json&token=" + token]).string("id") == id)
            let found = try Curl.json([a + api + "/search?f=json&q=owner%3Aalice&token=" + token])
            #expect(found["results"]?.arrayValue?.compactMap { $0.objectValue?.string("id") }.contains(id) == true, "\(found)")
            let whole = dir + "/whole.mmpk"
            _ = try Curl.text(["-o", whole, cluster.url + api + "/content/items/\(id)/data?token=" + token])
            #expect(try readFile(whole) == bytes)
            let range = dir + "/range"
            let headers = try Curl.text(["-D", "-", "-o", range, "-H", "Range: bytes=100-4195", b + api + "/content/items/\(id)/data?token=" + token])
            #expect(headers.contains("206"), "\(headers)")
            #expect(try readFile(range) == Array(bytes[100...4195]))

            // The object store saw the parts, the multipart join and the ranged read.
            let s3 = try S3Server.logLines { $0.contains { $0.contains("bytes%3D100-4195") } }
            #expect(s3.filter { $0.contains("/uploads/\(id)/") && $0.contains(" PUT ") }.count == 3)
            #expect(s3.contains { $0.contains("/items/\(id)/") && $0.contains("uploads") && $0.contains(" POST ") }, "a multipart upload was begun")
            #expect(s3.contains { $0.contains("/items/\(id)/") && $0.contains(" GET ") && $0.contains("bytes%3D100-4195") }, "a ranged GET")

            // Revoked at A: refused at B and C.
            _ = try Curl.text(["-d", "token=\(token)&f=json", a + api + "/oauth2/revokeToken"])
            for base in [b, c] {
                let refused = try Curl.json([base + api + "/community/self?f=json&token=" + token])
                #expect(refused.object("error")?["code"]?.intValue == 498, "\(refused)")
            }
            // Each of the three processes answered through nginx.
            _ = try (0..<6).map { _ in try Curl.text([cluster.url + api + "/content/items/\(id)?f=json&token=x"]) }
            let upstreams = Set(try String(contentsOfFile: cluster.accessLog, encoding: .utf8).split(separator: "\n").compactMap { line in
                line.split(separator: " ").first { $0.hasPrefix("up=") }
            })
            #expect(upstreams.count == 3, "\(upstreams)")
            // The balancer's health check.
            #expect(try Curl.text([cluster.url + "/health"]).contains("\"ok\""))
        }
    }

    /// Our own client through the balancer: OAuth sign-in (its steps answered by different
    /// processes), publish in parts, search, download, publish a new version, check for it.
    @Test(enabled)
    func ourClientWorksThroughTheBalancer() throws {
        try withTemporaryDirectory { dir in
            let cluster = try PortalCluster(users: [("alice", "alice-password-1", true)])
            let home = dir + "/home"
            func mapbook(_ arguments: [String], stdin: String? = nil) throws -> MapbookBinary.Result {
                try MapbookBinary.run(arguments, environment: ["MAPBOOK_HOME": home], stdin: stdin)
            }
            let signIn = try mapbook(["portal", "signin", cluster.url, "--user", "alice", "--password-stdin", "--ca-cert", cluster.certificate], stdin: "alice-password-1\n")
            try #require(signIn.status == 0, "\(signIn.stderr)")
            func json(_ result: MapbookBinary.Result) throws -> [String: Any] {
                try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout) \(result.stderr)")
            }
            let package = try TestPackages.makePackage(in: dir, name: "Balanced.mmpk")
            let published = try json(try mapbook(["portal", "publish", package, "--part-size", "20000", "--json"]))
            let id = try #require(published["itemId"] as? String, "\(published)")
            let search = try mapbook(["portal", "search", "Sample", "--json"])
            #expect(search.status == 0 && search.stdout.contains(id), "\(search.stdout) \(search.stderr)")
            let download = try json(try mapbook(["portal", "download", id, "--json"]))
            #expect(download["sha256"] as? String == SHA256Digest.hex(of: try readFile(package)))
            let second = try TestPackages.makePackage(in: dir, name: "Balanced v2.mmpk", timestamp: 1_800_000_000)
            let updated = try json(try mapbook(["portal", "publish", second, "--part-size", "20000", "--json"]))
            #expect(updated["action"] as? String == "updated" && updated["itemId"] as? String == id, "\(updated)")
            let update = try mapbook(["portal", "update", "--all"])
            #expect(update.status == 0 && update.stdout.contains("Updated"), "\(update.stdout) \(update.stderr)")
            #expect(try readFile(home + "/downloads/\(id).mmpk") == readFile(second))
        }
    }

    /// Field editing through the balancer's processes: the package published at C, device A
    /// synchronising through A and device B through B, an attachment uploaded at A and
    /// downloaded at B, the synchronised data published as a new version at C. Each step
    /// reads the copy the one before left in the bucket, whichever process made it.
    @Test(enabled)
    func editsSynchroniseThroughAnyProcess() throws {
        try withTemporaryDirectory { dir in
            let cluster = try PortalCluster(users: [("alice", "alice-password-1", true)])
            func mapbook(_ home: String, _ arguments: [String], stdin: String? = nil) throws -> MapbookBinary.Result {
                let result = try MapbookBinary.run(arguments, environment: ["MAPBOOK_HOME": dir + "/" + home], stdin: stdin)
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
                return result
            }
            // Each home signs in at one process, so each command goes there.
            for (home, process) in [("a", 1), ("b", 2), ("c", 3)] {
                _ = try mapbook(home, ["portal", "signin", try cluster.processURL(process), "--user", "alice", "--password-stdin", "--ca-cert", cluster.certificate], stdin: "alice-password-1\n")
            }
            let project = try EditableTrees.write(in: dir + "/project", related: true)
            _ = try mapbook("c", ["create", project, "-o", dir + "/trees.mmpk"])
            let published = try mapbook("c", ["portal", "publish", dir + "/trees.mmpk", "--json"])
            let id = try #require((try JSONSerialization.jsonObject(with: Data(published.stdout.utf8)) as? [String: Any])?["itemId"] as? String)
            for home in ["a", "b"] { _ = try mapbook(home, ["portal", "download", id]) }
            let package = { (home: String) in dir + "/\(home)/downloads/\(id).mmpk" }

            // A: a tree dead and a photo of another, synchronised through process 1.
            _ = try mapbook("a", ["edit", "update", package("a"), "--layer", "trees", "2", "--set", "condition=Dead"])
            let photo = dir + "/bark.jpg"
            let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + (0..<30_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
            try Data(bytes).write(to: URL(fileURLWithPath: photo))
            _ = try mapbook("a", ["edit", "attach", package("a"), "--layer", "trees", "1", photo])
            _ = try mapbook("a", ["sync", id, "--json"])
            // B: another tree's trunk, through process 2; it receives A's edits and photo.
            _ = try mapbook("b", ["edit", "update", package("b"), "--layer", "trees", "3", "--set", "dbh=41"])
            _ = try mapbook("b", ["sync", id, "--json"])
            // A again, through process 1: B's edit arrives.
            _ = try mapbook("a", ["sync", id, "--json"])
            func value(_ home: String, _ sql: String) throws -> SQLiteValue? {
                let copies = try FileManager.default.contentsOfDirectory(atPath: dir + "/\(home)/edits")
                return try SQLiteDatabase(readOnlyPath: dir + "/\(home)/edits/\(copies[0])/data.gpkg").scalar(sql)
            }
            // Online (issue 33): an edit applied through process 2 is read through process 3
            // and reaches A's next sync through process 1.
            let credential = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/b/credential.json")))).objectValue
            let token = try #require(credential?.string("token"))
            let layer = { (process: Int) in "\(try cluster.processURL(process))/rest/services/\(id)/FeatureServer/0" }
            let applied = try Curl.json([
                "-X", "POST", "--data-urlencode", #"updates=[{"attributes":{"fid":3,"common":"linden"}}]"#, "--data-urlencode", "f=json",
                "--data-urlencode", "token=\(token)", try layer(2) + "/applyEdits",
            ])
            #expect(applied.array("updateResults")?.first?.objectValue?["success"] == true, "\(applied)")
            let read = try Curl.json([try layer(3) + "/query?objectIds=3&outFields=common&f=json&token=\(token)"])
            #expect(read.array("features")?.first?.objectValue?.object("attributes")?.string("common") == "linden", "\(read)")
            _ = try mapbook("a", ["sync", id, "--json"])
            #expect(try value("a", "SELECT common FROM trees WHERE fid = 3") == .text("linden"))
            for home in ["a", "b"] {
                #expect(try value(home, "SELECT condition FROM trees WHERE fid = 2") == .text("Dead"), "\(home)")
                #expect(try value(home, "SELECT CAST(dbh AS REAL) FROM trees WHERE fid = 3") == .real(41), "\(home)")
                #expect(try value(home, "SELECT data FROM trees_attachments WHERE att_name = 'bark.jpg'") == .blob(bytes), "\(home)")
            }
            // A map area (issue 33): submitted at process 2, its job followed at process 1,
            // the package downloaded and its edit synchronised through process 3, read online
            // at process 1.
            let item = try Curl.json(["\(try cluster.processURL(1))/sharing/rest/content/items/\(id)?f=json&token=\(token)"])
            let extent = try #require(item.array("extent")?.compactMap { $0.arrayValue?.compactMap(\.doubleValue) }, "\(item)")
            let area = [extent[0][0], extent[0][1], extent[1][0], extent[1][1]].map { String($0) }.joined(separator: ",")
            let task = "/rest/services/System/OfflinePackaging/GPServer/PackageMap"
            let submitted = try Curl.json([
                "-X", "POST", "--data-urlencode", "webmapItemId=\(id)", "--data-urlencode", "areaOfInterest=\(area)", "--data-urlencode", "f=json",
                "--data-urlencode", "token=\(token)", try cluster.processURL(2) + task + "/submitJob",
            ])
            let job = try #require(submitted.string("jobId"), "\(submitted)")
            var state: JSONObject = [:]
            for _ in 0..<600 where !["esriJobSucceeded", "esriJobFailed"].contains(state.string("jobStatus") ?? "") {
                Thread.sleep(forTimeInterval: 0.1)
                state = try Curl.json([try cluster.processURL(1) + task + "/jobs/\(job)?f=json&token=\(token)"])
            }
            #expect(state.string("jobStatus") == "esriJobSucceeded", "\(state)")
            let areaId = try #require(try Curl.json([try cluster.processURL(1) + task + "/jobs/\(job)/results/packageItemId?f=json&token=\(token)"]).string("value"))
            _ = try mapbook("c", ["portal", "download", areaId])
            _ = try mapbook("c", ["edit", "update", dir + "/c/downloads/\(areaId).mmpk", "--layer", "trees", "1", "--set", "common=area oak"])
            _ = try mapbook("c", ["sync", areaId, "--json"])
            let fromArea = try Curl.json([try layer(1) + "/query?objectIds=1&outFields=common&f=json&token=\(token)"])
            #expect(fromArea.array("features")?.first?.objectValue?.object("attributes")?.string("common") == "area oak", "\(fromArea)")

            // The synchronised data as a new version, published at process 3; a fresh device
            // downloading it through nginx has every edit.
            _ = try mapbook("c", ["portal", "publish", "--from-sync", id, "--json"])
            _ = try mapbook("d", ["portal", "signin", cluster.url, "--user", "alice", "--password-stdin", "--ca-cert", cluster.certificate], stdin: "alice-password-1\n")
            _ = try mapbook("d", ["portal", "download", id])
            let fresh = try MobileMapPackage(path: dir + "/d/downloads/\(id).mmpk")
            let data = dir + "/fresh.gpkg"
            try Data(try fresh.archive.read(try #require(fresh.dataEntry))).write(to: URL(fileURLWithPath: data))
            let database = try SQLiteDatabase(readOnlyPath: data)
            #expect(try database.scalar("SELECT condition FROM trees WHERE fid = 2") == .text("Dead"))
            #expect(try database.scalar("SELECT count(*) FROM trees_attachments WHERE att_name = 'bark.jpg'") == .integer(1))
        }
    }

    @Test(.enabled(if: (PortalArcGISClientTests.hasArcGIS && FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx")) || ExternalTools.isCI,
                   "the arcgis Python package (tools/setup) or nginx is missing"))
    func theArcGISClientWorksThroughTheBalancer() throws {
        try withTemporaryDirectory { dir in
            let cluster = try PortalCluster(users: [("alice", "alice-secret-1", true), ("bob", "bob-secret-22", false)])
            let first = try TestPackages.makePackage(in: dir, name: "Field Water.mmpk")
            let second = try TestPackages.makePackage(in: dir, name: "Field Water v2.mmpk", timestamp: 1_800_000_000)
            let script = Fixtures.repositoryRoot.appendingPathComponent("tools/portal/arcgis_client_check.py").path
            let (status, output) = try ExternalTools.run(
                ExternalTools.python, [script, cluster.url, first, second, "alice", "alice-secret-1", "bob", "bob-secret-22", dir + "/downloads"])
            #expect(status == 0, "\(output.suffix(1500))")
            #expect(output.contains("all checks passed"))
        }
    }
}
