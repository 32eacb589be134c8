import Foundation
import MapbookSupport
import MapbookTestSupport
import Testing

/// End-to-end: the built `mapbook` binary, its output and exit status.
@Suite struct CommandTests {
    /// A project over a GeoPackage made in code.
    func makeProject(in dir: String) throws -> String {
        try TestPackages.makeGeoPackage(at: dir + "/data.gpkg")
        try writeFile(dir + "/thumb.png", TestPackages.png)
        try writeFile(dir + "/project.yaml", """
            title: Command Test
            summary: Built by the end-to-end tests
            thumbnail: thumb.png
            expiration: { date: 2099-01-01, message: Ask GIS for a new copy }
            sources:
              points: { path: data.gpkg, table: points }
            maps:
              - name: Alpha
                layers:
                  - source: points
                    renderer:
                      type: uniqueValue
                      field1: KIND
                      uniqueValueInfos:
                        - { value: even, symbol: { type: esriSMS, color: "#0072b2", size: 8 } }
                        - { value: odd, symbol: { type: esriSMS, color: "#d55e00", size: 8 } }
                bookmarks:
                  - { name: Centre, center: [-88.15, 41.75], scale: 5000 }
              - name: Beta
                layers: [{ source: points, visible: false }]
            """)
        return dir + "/project.yaml"
    }

    /// Past its date, a package with preventExpiredAccess is refused by every command that
    /// shows or changes its data, with its own message; inspect and validate still work and
    /// say it expired; one with allowExpiredAccess works, saying so once.
    @Test func expiredPackagesAreRefusedByEveryCommandThatShowsTheirData() throws {
        try withTemporaryDirectory { dir in
            let project = try makeProject(in: dir)
            let text = try String(contentsOfFile: project, encoding: .utf8)
            var packages: [String: String] = [:]
            for kind in ["preventExpiredAccess", "allowExpiredAccess"] {
                try writeFile(project, text.replacingOccurrences(of: "expiration: { date: 2099-01-01,", with: "expiration: { date: 2020-01-01, type: \(kind),"))
                let created = try MapbookBinary.run(["create", project, "-o", dir + "/\(kind).mmpk", "--fixed-time", "2019-01-01T00:00:00Z"])
                try #require(created.status == 0, "\(created.stderr)")
                packages[kind] = dir + "/\(kind).mmpk"
            }
            let env = ["MAPBOOK_HOME": dir + "/home"]
            let commands: [[String]] = [
                ["render", "-o", dir + "/r.png"], ["identify", "--at=-88.15,41.75"], ["legend"], ["toc"], ["bookmarks"],
                ["search", "x"], ["reverse", "--at=-88.15,41.75"], ["route", "--from=-88.15,41.75", "--to=-88.16,41.76"],
            ]
            for command in commands + [["edit-add"]] {
                let arguments = command == ["edit-add"]
                    ? ["edit", "add", packages["preventExpiredAccess"]!, "--layer", "points", "--at=-88.15,41.75"]
                    : [command[0], packages["preventExpiredAccess"]!] + command.dropFirst()
                let refused = try MapbookBinary.run(arguments, environment: env)
                #expect(refused.status == 1, "\(command): \(refused.stderr)")
                #expect(refused.stderr.contains("expired on 2020-01-01 and can no longer be opened: Ask GIS for a new copy"), "\(command): \(refused.stderr)")
            }
            let inspect = try MapbookBinary.run(["inspect", packages["preventExpiredAccess"]!])
            #expect(inspect.status == 0 && inspect.stdout.contains("2020-01-01"), "\(inspect.stdout)")
            let validate = try MapbookBinary.run(["validate", packages["preventExpiredAccess"]!])
            #expect(validate.status == 0 && validate.stdout.contains("expired"), "\(validate.stdout)")

            let allowed = try MapbookBinary.run(["render", packages["allowExpiredAccess"]!, "-o", dir + "/a.png"], environment: env)
            #expect(allowed.status == 0, "\(allowed.stderr)")
            let notices = allowed.stderr.components(separatedBy: "expired on 2020-01-01: Ask GIS for a new copy").count - 1
            #expect(notices == 1, "\(allowed.stderr)")
        }
    }

    @Test func createInspectValidateExtract() throws {
        try withTemporaryDirectory { dir in
            let project = try makeProject(in: dir)
            let create = try MapbookBinary.run(["create", project, "-o", dir + "/t.mmpk", "--fixed-time", "2026-11-22T00:00:00Z"])
            #expect(create.status == 0, "\(create.stderr)")
            #expect(create.stdout.contains("2 maps"))

            let inspect = try MapbookBinary.run(["inspect", dir + "/t.mmpk"])
            #expect(inspect.status == 0, "\(inspect.stderr)")
            for expected in ["Command Test", "Created:     2026-11-22T00:00:00Z", "1. Alpha", "2. Beta", "uniqueValue by KIND, 2 classes",
                "data.gpkg › points (3 rows)", "[ ] points", "Centre", "1:5,000", "Expires:", "p20/data.gpkg", "Total: 7 entries"] {
                #expect(inspect.stdout.contains(expected), "missing '\(expected)' in:\n\(inspect.stdout)")
            }

            // `inspect` is read by hand when it can be (issue 36): flags in any order, the same
            // report; anything else still reaches the parser, which explains.
            let short = try MapbookBinary.run(["inspect", dir + "/t.mmpk", "--no-entries"])
            #expect(short.status == 0 && short.stdout.contains("Total: 7 entries") && !short.stdout.contains("\nEntries\n"), "\(short.stdout)")
            #expect(try MapbookBinary.run(["inspect", "--no-entries", dir + "/t.mmpk"]).stdout == short.stdout)
            for wrong in [["inspect", dir + "/t.mmpk", dir + "/t.mmpk"], ["inspect", "--entries", dir + "/t.mmpk"], ["inspect"]] {
                let refused = try MapbookBinary.run(wrong)
                #expect(refused.status == 64 && refused.stderr.contains("Usage: mapbook inspect"), "\(wrong): \(refused.stderr)")
            }
            #expect(try MapbookBinary.run(["inspect", "--help"]).stdout.contains("--no-entries"))

            let json = try MapbookBinary.run(["inspect", "--json", dir + "/t.mmpk"])
            #expect(try MapbookBinary.run(["inspect", dir + "/t.mmpk", "--json"]).stdout == json.stdout)
            let value = try JSONParser.parse(json.stdout).objectValue
            #expect(value?.string("kind") == "Mobile Map Package")
            #expect(value?.array("maps")?.count == 2)
            #expect(value?.object("item")?.string("modifiedISO") == "2026-11-22T00:00:00Z")

            let validate = try MapbookBinary.run(["validate", dir + "/t.mmpk"])
            #expect(validate.status == 0, "\(validate.stdout)")
            #expect(validate.stdout.contains("valid (0 errors, 0 warnings"))
            let validateJSON = try JSONParser.parse(try MapbookBinary.run(["validate", "--json", dir + "/t.mmpk"]).stdout)
            #expect(validateJSON.objectValue?.int("errors") == 0)

            let extract = try MapbookBinary.run(["extract", dir + "/t.mmpk", dir + "/unpacked"])
            #expect(extract.status == 0, "\(extract.stderr)")
            #expect(FileManager.default.fileExists(atPath: dir + "/unpacked/p20/Alpha.mmap"))
            // The sources were imported into the package's own data.gpkg, row for row.
            let source = try SQLiteDatabase(readOnlyPath: dir + "/data.gpkg")
            let packaged = try SQLiteDatabase(readOnlyPath: dir + "/unpacked/p20/data.gpkg")
            for table in try source.query("SELECT table_name FROM gpkg_contents").compactMap({ $0[0].text }) {
                let count = try source.scalar("SELECT count(*) FROM \(SQLiteDatabase.quote(table))")?.int64
                #expect(try packaged.scalar("SELECT count(*) FROM \(SQLiteDatabase.quote(table))")?.int64 == count)
            }
        }
    }

    /// PROJ and Cairo bring most of the shared libraries; only the commands that reproject or
    /// draw may load them (Sources/CMapbookLazy), so the others start fast.
    @Test func onlyCommandsThatReprojectDrawOrZipLoadPROJCairoAndLibarchive() throws {
        try withTemporaryDirectory { dir in
            let project = try makeProject(in: dir)
            let create = try MapbookBinary.run(["create", project, "-o", dir + "/t.mmpk"], environment: ["LD_DEBUG": "libs"])
            #expect(create.status == 0, "\(create.stderr.suffix(2000))")
            for library in ["libproj.so", "libcairo.so", "libarchive.so"] {
                #expect(create.stderr.contains(library), "create reprojects, draws thumbnails and writes the ZIP: \(library)")
            }
            for arguments in [["--version"], ["inspect", dir + "/t.mmpk"], ["validate", dir + "/t.mmpk"]] {
                let run = try MapbookBinary.run(arguments, environment: ["LD_DEBUG": "libs"])
                #expect(run.status == 0, "\(arguments)")
                for library in ["libproj.so", "libcairo.so", "libarchive.so"] {
                    #expect(!run.stderr.contains(library), "mapbook \(arguments.joined(separator: " ")) loaded \(library)")
                }
            }
        }
    }

    @Test func packagesAreIdenticalInEveryTimeZone() throws {
        try withTemporaryDirectory { dir in
            let project = try makeProject(in: dir)
            let tokyo = try MapbookBinary.run(["create", project, "-o", dir + "/a.mmpk"], environment: ["TZ": "Asia/Tokyo", "SOURCE_DATE_EPOCH": "1795305600"])
            let chicago = try MapbookBinary.run(["create", project, "-o", dir + "/b.mmpk", "--fixed-time", "1795305600"], environment: ["TZ": "America/Chicago"])
            #expect(tokyo.status == 0 && chicago.status == 0)
            #expect(try readFile(dir + "/a.mmpk") == readFile(dir + "/b.mmpk"))
        }
    }

    @Test(arguments: BadPackage.allCases)
    func everyBadInputGivesAClearMessageAndExitStatusOne(_ bad: BadPackage) throws {
        try withTemporaryDirectory { dir in
            let path = try bad.make(in: dir)
            let name = (path as NSString).lastPathComponent

            let validate = try MapbookBinary.run(["validate", path])
            #expect(validate.status == 1)
            #expect(validate.stdout.contains("[\(bad.expectedCode)]"), "\(validate.stdout)")
            #expect(validate.stdout.contains(name) && validate.stdout.contains("NOT valid"))

            let inspect = try MapbookBinary.run(["inspect", path])
            #expect(inspect.status == 1, "\(inspect.stdout)\n\(inspect.stderr)")
            #expect(inspect.stderr.contains(name), "\(inspect.stderr)")
            #expect(!inspect.stderr.contains("Fatal error"))

            let before = listTree(dir)
            let extract = try MapbookBinary.run(["extract", path, dir + "/out"])
            if bad.extractRefuses {
                #expect(extract.status == 1)
                #expect(extract.stderr.contains(name) || extract.stderr.contains(path), "\(extract.stderr)")
                #expect(listTree(dir) == before, "extract wrote something")
            }
        }
    }

    @Test func extractsIntoTheCurrentFolder() throws {
        try withTemporaryDirectory { dir in
            let package = try TestPackages.makePackage(in: dir)
            try FileManager.default.createDirectory(atPath: dir + "/here", withIntermediateDirectories: true)
            let result = try MapbookBinary.run(["extract", package, "."], in: dir + "/here")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(listTree(dir + "/here").contains("p20/Second Map.mmap"))
            #expect(!listTree(dir + "/here").contains { $0.hasPrefix(".mapbook-extract") })
        }
    }

    @Test func usageErrorsExitWith64() throws {
        #expect(try MapbookBinary.run(["validate"]).status == 64)
        #expect(try MapbookBinary.run(["create", "x.yaml", "--fixed-time", "someday"]).status == 64)
        #expect(try MapbookBinary.run(["extract", "a.mmpk", "b", "--max-ratio", "0"]).status == 64)
        #expect(try MapbookBinary.run(["frobnicate"]).status == 64)
        #expect(try MapbookBinary.run(["create", "x.yaml", "--fixed-time", "9223372036854776"]).status == 64)
        #expect(try MapbookBinary.run(["extract", "a.mmpk", "b", "--max-size", "9000000000000"]).status == 64)
    }

    @Test func projectMistakesNameTheFileKeyAndLine() throws {
        try withTemporaryDirectory { dir in
            try writeFile(dir + "/p.yaml", "title: T\nmaps:\n  - name: M\n    layers: [ghost]\n")
            let result = try MapbookBinary.run(["create", dir + "/p.yaml"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("p.yaml:4"))
            #expect(result.stderr.contains("maps[0].layers[0]: no source named 'ghost'"))
            #expect(listTree(dir) == ["p.yaml"])
        }
    }

    @Test(Fixtures.required)
    func tilesBuildWritesEveryFormatItNames() throws {
        try withTemporaryDirectory { dir in
            let countries = "countries=" + Fixtures.path("natural-earth/110m/ne_110m_admin_0_countries.json")
            for name in ["world.vtpk", "world.pmtiles", "world.mbtiles", "world-tiles"] {
                let result = try MapbookBinary.run(["tiles", "build", "--maxzoom", "3", "-o", dir + "/" + name, countries])
                #expect(result.status == 0, "\(name): \(result.stderr)")
                #expect(result.stdout.contains("countries: 177 features"))
                #expect(result.stdout.contains("zoom  tiles"))
                #expect(FileManager.default.fileExists(atPath: dir + "/" + name))
            }
            let validate = try MapbookBinary.run(["validate", dir + "/world.vtpk"])
            #expect(validate.status == 0, "\(validate.stdout)")
            // A second run refuses to overwrite; a bad input names the file; nothing is left behind.
            let again = try MapbookBinary.run(["tiles", "build", "-o", dir + "/world.vtpk", countries])
            #expect(again.status != 0 && again.stderr.contains("--force"))
            // A tiler with 1 MiB sorts on disk and writes the tiles it writes with its default memory.
            let tight = try MapbookBinary.run(["tiles", "build", "--maxzoom", "3", "--memory", "1M", "-o", dir + "/tight.mbtiles", countries])
            let roomy = try MapbookBinary.run(["tiles", "build", "--maxzoom", "3", "-o", dir + "/roomy.mbtiles", countries])
            #expect(tight.status == 0, "\(tight.stderr)")
            let report = { (run: MapbookBinary.Result) in run.stdout.split(separator: "\n").filter { !$0.hasPrefix("wrote") } }
            #expect(report(tight) == report(roomy) && report(roomy).count > 5)
            let small = try MapbookBinary.run(["tiles", "build", "--memory", "12x", "-o", dir + "/x.mbtiles", countries])
            #expect(small.status != 0 && small.stderr.contains("'12x' is not a size"))
            try writeFile(dir + "/bad.geojson", "{\"type\": \"FeatureCollection\", \"features\": [")
            let bad = try MapbookBinary.run(["tiles", "build", "-o", dir + "/bad.vtpk", dir + "/bad.geojson"])
            #expect(bad.status != 0 && bad.stderr.contains("bad.geojson"))
            #expect(!FileManager.default.fileExists(atPath: dir + "/bad.vtpk"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") }.isEmpty)
        }
    }

    @Test(Fixtures.required)
    func inspectsRealEsriFiles() throws {
        let gdb = try MapbookBinary.run(["inspect", Fixtures.path("esri-runtime-data/usa.geodatabase")])
        #expect(gdb.status == 0)
        #expect(gdb.stdout.contains("USStates") && gdb.stdout.contains("49 rows"))
        let bundle = try MapbookBinary.run(["inspect", "--json", Fixtures.path("esri-compactcache")])
        #expect(bundle.status == 0)
        #expect(try JSONParser.parse(bundle.stdout).objectValue?.array("tilePackages")?.first?.objectValue?.int("tiles") == 4)
    }
}

extension BadPackage {
    /// What extract refuses: everything that breaks the archive, not a map's content.
    var extractRefuses: Bool {
        switch self {
        case .missingInfo, .mapNotJSON, .pathToNowhere: return false
        default: return true
        }
    }
}

@Suite struct HostileCommandTests {
    @Test func inspectAndValidateSurviveAbsurdNumbers() throws {
        try withTemporaryDirectory { dir in
            try HostilePackages.absurdNumbers(at: dir + "/p.mmpk")
            let inspect = try MapbookBinary.run(["inspect", dir + "/p.mmpk"])
            #expect(inspect.status == 0, "\(inspect.stderr)")
            #expect(inspect.stdout.contains("far") && inspect.stdout.contains("1e+300"))
            let validate = try MapbookBinary.run(["validate", "--json", dir + "/p.mmpk"])
            #expect(validate.status == 1)
            let codes = (try JSONParser.parse(validate.stdout).objectValue?.array("diagnostics") ?? []).compactMap { $0.objectValue?.string("code") }
            #expect(codes.contains("bookmark.extent") && codes.contains("map.symbol") && codes.contains("manifest.date"), "\(codes)")
        }
    }
}
