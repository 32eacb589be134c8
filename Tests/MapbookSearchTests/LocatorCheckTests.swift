import Foundation
import MapbookData
import MapbookSupport
import MapbookTestSupport
import Testing
@testable import MapbookSearch

/// validate's search checks: coverage of every searchable feature, and search-quality files.
@Suite struct LocatorCheckTests {
    @Test func coverageIsCleanOnAFreshIndex() throws {
        let f = try SearchFixture.assetIDs()
        for locator in f.locators {
            let findings = LocatorValidator.coverage(locator)
            #expect(findings.map(\.severity) == [.note], "\(findings)")
            #expect(findings.first?.message.contains("all \(locator.index.entryCount) searchable features indexed") == true)
        }
    }

    @Test func coverageFindsFeaturesTheIndexLacksOrHasWrong() throws {
        let f = try SearchFixture.assetIDs()
        let hydrants = f.locators[0]
        // The same layer with a feature renamed, one added and one removed: the index, built
        // before, no longer covers it.
        let changed = f.directory.path + "/changed.gpkg"
        try FileManager.default.copyItem(atPath: f.geoPackage, toPath: changed)
        let db = try SQLiteDatabase(writablePath: changed, create: false)
        // The R-tree triggers call GeoPackage SQL functions this connection lacks.
        for trigger in try db.query("SELECT name FROM sqlite_master WHERE type = 'trigger'").compactMap({ $0[0].text }) {
            try db.execute("DROP TRIGGER \(SQLiteDatabase.quote(trigger))")
        }
        try db.execute("UPDATE hydrants SET FACILITYID = 'HYD-99999' WHERE FACILITYID = 'HYD-00007'")
        try db.execute("INSERT INTO hydrants (FACILITYID, SIZE) VALUES ('HYD-77777', 1)")
        try db.execute("DELETE FROM hydrants WHERE FACILITYID = 'HYD-00009'")
        try db.close()
        let stale = try SingleFieldLocator(definition: hydrants.definition, index: hydrants.index, data: try SQLiteDatabase(readOnlyPath: changed))
        let findings = LocatorValidator.coverage(stale)
        #expect(findings.allSatisfy { $0.severity == .error && $0.code == "locator.coverage" })
        let text = findings.map(\.message).joined(separator: "\n")
        #expect(text.contains("1 of 499 searchable features are not in the index"))
        #expect(text.contains("HYD-77777"))
        #expect(text.contains("1 features are indexed under other words"))
        #expect(text.contains("'HYD-99999'"))
        #expect(text.contains("holds 1 features that the layer does not have"))
    }

    @Test func qualityFilesReportHitsAtOneAndFive() throws {
        let f = try SearchFixture.assetIDs()
        let json = try JSONParser.parse("""
            {"queries": [
              {"text": "HYD-00123", "expect": "HYD-00123"},
              {"text": "00123", "expect": "hyd 00123", "participant": "Hydrants"},
              {"text": "vlv 150", "expect": "VLV-00150"},
              {"text": "HYD-001", "expect": "HYD-00105", "suggest": true},
              {"text": "HYD-0012", "expect": "HYD-00123", "suggest": true, "near": [-88.15, 41.77]},
              {"text": "00123", "expect": "HYD-00123", "participant": "Valves"}
            ]}
            """)
        let quality = try SearchQuality.parse(json, path: "q.json")
        #expect(try SearchQuality.parse(quality.jsonValue, path: "again") == quality)
        let outcome = try quality.run(f.composite)
        #expect(outcome.total == 6)
        // Asset IDs in order: "HYD-001" suggests HYD-00100... first, so 00105 is 6th: a miss.
        #expect(outcome.hitsAt1 == 2)
        #expect(outcome.hitsAt5 == 3)
        #expect(outcome.misses.map(\.query.text) == ["vlv 150", "HYD-001", "00123"])
        #expect(outcome.late.map(\.position) == [4])
    }

    @Test func qualityFileMistakesAreNamed() throws {
        /// The kind of the refusal, after checking that it names the file.
        func kind(_ text: String) -> LocatorError.Kind? {
            do {
                _ = try SearchQuality.parse(try JSONParser.parse(text), path: "q.json")
                return nil
            } catch let error as LocatorError {
                #expect(error.path == "q.json" && error.description.contains("q.json"), "\(error)")
                return error.kind
            } catch {
                Issue.record("not a LocatorError: \(error)")
                return nil
            }
        }
        #expect(kind("{\"queries\": [{\"text\": \"a\"}]}") == .missingKey)
        #expect(kind("{\"queries\": [{\"expect\": \"a\"}]}") == .missingKey)
        #expect(kind("{\"queries\": [{\"text\": \"a\", \"expect\": \"b\", \"nears\": 1}]}") == .unknownKey)
        #expect(kind("{\"queries\": [{\"text\": \"a\", \"expect\": \"b\", \"near\": [1]}]}") == .invalidValue)
        #expect(kind("{\"q\": 1}") == .invalidValue)
    }
}
