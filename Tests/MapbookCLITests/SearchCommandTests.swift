import Foundation
import MapbookSupport
import MapbookTestSupport
import Testing

/// `mapbook search`, `mapbook reverse` and validate's search checks, on the Naperville sample
/// (generated, so these run on a fresh machine too).
@Suite(.serialized) struct SearchCommandTests {
    static let directory = NSTemporaryDirectory() + "mapbook-search-cli-\(getpid())"

    /// Builds the sample package once for the suite; removed when the test process exits.
    static let package: String = {
        let dir = directory
        try? FileManager.default.removeItem(atPath: dir)
        atexit { try? FileManager.default.removeItem(atPath: SearchCommandTests.directory) }
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let generator = Process()
        generator.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        generator.arguments = ["python3", Fixtures.repositoryRoot.appendingPathComponent("tools/samples/naperville.py").path, dir]
        generator.standardOutput = FileHandle.nullDevice
        try? generator.run()
        generator.waitUntilExit()
        for file in ["project.yaml", "search-quality.yaml"] {
            try? FileManager.default.copyItem(atPath: Fixtures.repositoryRoot.appendingPathComponent("samples/naperville-water/" + file).path, toPath: dir + "/" + file)
        }
        _ = try? MapbookBinary.run(["create", dir + "/project.yaml", "-o", dir + "/n.mmpk", "--fixed-time", "2026-01-01"])
        return dir + "/n.mmpk"
    }()

    func json(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }

    @Test func searchPrintsRankedFeaturesAsTextAndJSON() throws {
        let text = try MapbookBinary.run(["search", Self.package, "484 w sprng ave", "--max", "3"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.hasPrefix("1. 484 W Spring Ave  (Address Points, fuzzy, score "))

        let run = try MapbookBinary.run(["search", Self.package, "WV-00123", "--json", "--near", "-88.15,41.75"])
        #expect(run.status == 0, "\(run.stderr)")
        let results = try #require(try json(run.stdout).arrayValue)
        let first = try #require(results.first?.objectValue)
        #expect(first.string("label") == "WV-00123")
        #expect(first.string("participant") == "Water System Valves")
        #expect(first.double("score") == 100)
        let location = try #require(first.object("location"))
        #expect((-88.2 ... -88.1).contains(location.double("x") ?? 0) && (41.7 ... 41.8).contains(location.double("y") ?? 0))
        #expect(first.object("attributes")?.isEmpty == false)
        #expect(first.double("distance") != nil)
    }

    /// Results name their fields as identify does: by the project's aliases.
    @Test func searchResultsLabelFieldsByTheirAliases() throws {
        let text = try MapbookBinary.run(["search", Self.package, "WV-00123"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("Valve Type: ") && text.stdout.contains("Diameter (in): "), "\(text.stdout)")
        #expect(!text.stdout.contains("VALVETYPE:"), "\(text.stdout)")
    }

    @Test func suggestGivesDistinctTextsWithTheirNearestFeature() throws {
        let run = try MapbookBinary.run(["search", Self.package, "451 E Chic", "--suggest", "--json", "--max", "5"])
        #expect(run.status == 0, "\(run.stderr)")
        let items = try #require(try json(run.stdout).arrayValue?.compactMap(\.objectValue))
        #expect(items.first?.string("label") == "451 E Chicago Ave")
        #expect(Set(items.compactMap { $0.string("label") }).count == items.count)
        #expect(items.allSatisfy { $0.object("location") != nil && $0.string("participant") != nil && $0.double("score") != nil })
    }

    @Test func reverseAnswersWithTheNearestFeatureFirst() throws {
        let hit = try MapbookBinary.run(["search", Self.package, "484 W Spring Ave", "--json", "--max", "1"])
        let location = try #require(try json(hit.stdout).arrayValue?.first?.objectValue?.object("location"))
        let at = "\(location.double("x")! + 0.00002),\(location.double("y")!)"
        let run = try MapbookBinary.run(["reverse", Self.package, "--at", at, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let result = try #require(try json(run.stdout).arrayValue?.first?.objectValue)
        #expect(result.string("label") == "484 W Spring Ave")
        #expect(result.string("participant") == "Address Points")
        #expect(result.string("relation") == "near")
        #expect((result.double("distance") ?? 99) < 5)
        // --max: more features near, nearest first.
        let more = try MapbookBinary.run(["reverse", Self.package, "--at", at, "--json", "--max", "4", "--max-distance", "60"])
        let distances = try #require(try json(more.stdout).arrayValue).compactMap { $0.objectValue?.double("distance") }
        #expect(distances.count >= 2 && distances.count <= 4 && distances == distances.sorted(), "\(more.stdout)")
        // Nothing in range: exit 1 and say so.
        let far = try MapbookBinary.run(["reverse", Self.package, "--at", "0,0"])
        #expect(far.status == 1)
        #expect(far.stderr.contains("nothing searchable within 100 m"))
    }

    @Test func hostileAndEmptyQueriesAnswerNormally() throws {
        for q in ["'; DROP TABLE addresses; --", "NEAR(main st)", "\"main\" OR *", "", String(repeating: "x", count: 5000)] {
            let run = try MapbookBinary.run(["search", Self.package, q, "--json"])
            #expect(run.status == 0 || run.status == 1, "\(q): \(run.stderr)")
            #expect(!run.stderr.contains("SQL") && !run.stderr.contains("error"), "\(q): \(run.stderr)")
            #expect(try json(run.stdout).arrayValue != nil)
        }
        let none = try MapbookBinary.run(["search", Self.package, "zzqxv"])
        #expect(none.status == 1)
        #expect(none.stderr.contains("no results for 'zzqxv'"))
    }

    @Test func usageMistakesAndPackagesWithoutALocator() throws {
        #expect(try MapbookBinary.run(["search", Self.package, "main", "--near", "200,1"]).status == 64)
        #expect(try MapbookBinary.run(["search", Self.package, "main", "--max", "0"]).status == 64)
        #expect(try MapbookBinary.run(["reverse", Self.package]).status == 64)
        let missing = try MapbookBinary.run(["search", "/nonexistent.mmpk", "main"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("/nonexistent.mmpk"))
        try withTemporaryDirectory { dir in
            let plainPackage = try TestPackages.makePackage(in: dir)
            let plain = try MapbookBinary.run(["search", plainPackage, "main"])
            #expect(plain.status == 1)
            #expect(plain.stderr.contains("has no locator"))
        }
    }

    @Test func validateReportsCoverageAndSearchQuality() throws {
        let run = try MapbookBinary.run(["validate", Self.package, "--json"])
        #expect(run.status == 0, "\(run.stdout)")
        let diagnostics = try #require(try json(run.stdout).objectValue?.array("diagnostics")?.compactMap(\.objectValue))
        #expect(diagnostics.filter { $0.string("code") == "locator.coverage" }.count == 5)
        let quality = try #require(diagnostics.first { $0.string("code") == "search.quality" })
        #expect(quality.string("message")?.contains("hit@1 15/15 (100%), hit@5 15/15 (100%)") == true)
    }
}
