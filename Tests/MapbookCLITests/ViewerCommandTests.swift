import Foundation
import MapbookTestSupport
import Testing

/// End-to-end: the viewer's commands (`toc`, `legend`, `bookmarks`, `identify`, `render`) on
/// a package built by `create`, with the device library in a temporary `MAPBOOK_HOME`.
@Suite struct ViewerCommandTests {
    /// Longitude and latitude of the test GeoPackage's point `i` (Web Mercator x, y).
    static func point(_ i: Int) -> String {
        let x = -9_814_000.0 + Double(i) * 500, y = 5_120_000.0 + Double(i) * 500
        let r = 6_378_137.0
        let longitude = x / r * 180 / .pi, latitude = atan(sinh(y / r)) * 180 / .pi
        return "\(longitude),\(latitude)"
    }

    @Test func tocLegendBookmarksIdentifyAndRenderReadThePackageInPlace() throws {
        try withTemporaryDirectory { dir in
            let project = try CommandTests().makeProject(in: dir)
            let package = dir + "/t.mmpk"
            #expect(try MapbookBinary.run(["create", project, "-o", package]).status == 0)
            let home = ["MAPBOOK_HOME": dir + "/home"]

            let bookmarks = try MapbookBinary.run(["bookmarks", package], environment: home)
            #expect(bookmarks.status == 0 && bookmarks.stdout.contains("Centre"), "\(bookmarks.stdout)\(bookmarks.stderr)")

            let legend = try MapbookBinary.run(["legend", package, "--png", dir + "/legend.svg"], environment: home)
            #expect(legend.status == 0 && legend.stdout.contains("even") && legend.stdout.contains("odd"), "\(legend.stdout)\(legend.stderr)")
            #expect(try readFile(dir + "/legend.svg").starts(with: Array("<?xml".utf8)))

            let identify = try MapbookBinary.run(["identify", package, "--at", Self.point(1), "--scale", "5000"], environment: home)
            #expect(identify.status == 0 && identify.stdout.contains("Point 1") && !identify.stdout.contains("Point 2"), "\(identify.stdout)\(identify.stderr)")

            // Each picture format is written whole, with its own signature.
            let signatures = ["png": Array("\u{89}PNG".unicodeScalars.map { UInt8($0.value) }), "svg": Array("<?xml".utf8), "pdf": Array("%PDF-".utf8)]
            for (format, signature) in signatures {
                let out = dir + "/centre." + format
                let render = try MapbookBinary.run(["render", package, "--bookmark", "Centre", "--size", "320x240", "-o", out], environment: home)
                #expect(render.status == 0, "\(format): \(render.stderr)")
                #expect(try readFile(out).starts(with: signature), "\(format)")
            }

            // A layer hidden on this device stays hidden for the next command, and --reset shows it.
            let hide = try MapbookBinary.run(["toc", package, "--hide", "points"], environment: home)
            #expect(hide.status == 0 && hide.stdout.contains("[ ]"), "\(hide.stdout)\(hide.stderr)")
            let toc = try MapbookBinary.run(["toc", package], environment: home)
            #expect(toc.stdout.contains("[ ]") && !toc.stdout.contains("[x]"), "\(toc.stdout)")
            let hidden = try MapbookBinary.run(["identify", package, "--at", Self.point(1), "--scale", "5000"], environment: home)
            #expect(!hidden.stdout.contains("Point 1"), "a hidden layer is identified: \(hidden.stdout)")
            let reset = try MapbookBinary.run(["toc", package, "--reset"], environment: home)
            #expect(reset.stdout.contains("[x]"), "\(reset.stdout)")
        }
    }

    /// A vector tile package alone, as the unpacked folder the fixture is, drawn with its own
    /// style: the style's properties it does not draw are named as warnings.
    @Test(.enabled(if: Fixtures.available, "needs ../shared/fixtures/vtpk-basemapde"))
    func aVectorTilePackageFolderRendersWithItsOwnStyle() throws {
        try withTemporaryDirectory { dir in
            let render = try MapbookBinary.run(["render", Fixtures.path("vtpk-basemapde/sample_cache"), "--size", "300x300", "-o", dir + "/de.png"])
            #expect(render.status == 0, "\(render.stderr)")
            #expect(render.stderr.contains("warning: the style's line paint.line-blur is not drawn"), "\(render.stderr)")
            #expect(try readFile(dir + "/de.png").count > 1000)
        }
    }

    @Test func badViewsAndNamesAreUsageErrorsThatSayWhatIsAllowed() throws {
        try withTemporaryDirectory { dir in
            let project = try CommandTests().makeProject(in: dir)
            let package = dir + "/t.mmpk"
            #expect(try MapbookBinary.run(["create", project, "-o", package]).status == 0)
            let home = ["MAPBOOK_HOME": dir + "/home"]
            let cases: [([String], String)] = [
                (["render", package, "--size", "20000x10", "-o", dir + "/x.png"], "16384"),
                (["render", package, "--center", "-88,41", "--scale", "0", "-o", dir + "/x.png"], "positive scale"),
                (["render", package, "--bbox", "1,2,0,3", "-o", dir + "/x.png"], "XMIN < XMAX"),
                (["render", package, "-o", dir + "/x.jpg"], ".svg"),
                (["render", package, "--map", "Gamma", "-o", dir + "/x.png"], "'1. Alpha', '2. Beta'"),
                (["render", package, "--map", "9", "-o", dir + "/x.png"], "there is no map 9"),
                (["render", package, "--bookmark", "Nowhere", "-o", dir + "/x.png"], "'Centre'"),
                (["toc", package, "--hide", "nothing"], "choose one of"),
                (["render", package, "--center", "-88,41", "--scale", "-5", "-o", dir + "/x.png"], "'-5' is not a scale"),
                (["render", package, "--center", "-88,95", "--scale", "5000", "-o", dir + "/x.png"], "the order is LON,LAT"),
                (["search", package, "oak", "--near", "45.5,-122.6"], "latitude -122.6 is outside -90...90 (longitude and latitude swapped?"),
                (["reverse", package, "--at", "200,41"], "longitude 200 is outside -180...180"),
                (["identify", package, "--at=-88.15,41.75", "--search", "x"], "exclude each other"),
                (["create", project, "-o", dir + "/x.txt"], "ends in .mmpk"),
            ]
            for (arguments, words) in cases {
                let run = try MapbookBinary.run(arguments, environment: home)
                #expect(run.status == 64, "\(arguments): \(run.status) \(run.stderr)")
                #expect(run.stderr.contains(words), "\(arguments): \(run.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: dir + "/x.png"))
            // Said without a word of where mapbook keeps its work.
            let size = try MapbookBinary.run(["render", package, "--size", "0x0", "-o", dir + "/x.png"], environment: home)
            #expect(size.stderr.contains("error: a picture of 0 x 0 pixels cannot be drawn"), "\(size.stderr)")
            let folder = try MapbookBinary.run(["create", project, "-o", "/nonexistent/x.mmpk"])
            #expect(folder.status == 1 && folder.stderr.contains("the folder '/nonexistent' does not exist") && !folder.stderr.contains(".mapbook-"), "\(folder.stderr)")
        }
    }

    /// A package damaged where the drawing reads it (the ZIP, the manifest, the map drawn, its
    /// data) is drawn as far as it can be, never crashes the command, and exits 1 naming the
    /// package. Damage elsewhere (an unsafe or duplicate name, a bomb in an entry no map
    /// reads) is `validate`'s to report: the map is drawn.
    @Test(arguments: BadPackage.allCases)
    func aDamagedPackageIsReportedWithExitStatusOne(_ bad: BadPackage) throws {
        try withTemporaryDirectory { dir in
            let path = try bad.make(in: dir)
            let name = (path as NSString).lastPathComponent
            let map = bad == .pathToNowhere ? ["--map", "Second Map"] : []
            let render = try MapbookBinary.run(["render", path, "--size", "200x150", "-o", dir + "/out.png"] + map, environment: ["MAPBOOK_HOME": dir + "/home"])
            #expect(!render.stderr.contains("Fatal error"))
            switch bad {
            case .truncated, .wrongCRC, .missingInfo, .mapNotJSON, .pathToNowhere, .notAZip:
                #expect(render.status == 1, "\(render.status): \(render.stderr)")
                #expect(render.stderr.contains(name) || render.stderr.contains(bad.expectedWords), "\(render.stderr)")
            case .zipSlip, .absoluteName, .symlink, .zipBomb, .duplicateNames:
                #expect(render.status == 0, "\(render.status): \(render.stderr)")
                #expect(FileManager.default.fileExists(atPath: dir + "/out.png"))
            }
        }
    }
}
