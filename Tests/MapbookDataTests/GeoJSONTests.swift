import Foundation
import MapbookTestSupport
import Testing
@testable import MapbookData

@Suite struct GeoJSONTests {
    func readAll(_ path: String) throws -> (GeoJSONReader, [Feature]) {
        let reader = try GeoJSONReader(path: path)
        var features: [Feature] = []
        while let f = try reader.next() { features.append(f) }
        return (reader, features)
    }

    @Test(.enabled(if: Fixtures.available, "needs ../shared/fixtures"))
    func importsEveryGoodGeojsonhintCase() throws {
        let folder = Fixtures.path("geojsonhint/good")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() where name.hasSuffix(".geojson") {
            let (reader, features) = try readAll(folder + "/" + name)
            // Every good file yields its features (the null-geometry case yields a feature without one).
            #expect(!features.isEmpty || reader.report.count(.nullGeometry) > 0, "\(name)")
            #expect(reader.report.dropped == reader.report.count(.nullGeometry), "\(name): \(reader.report.lines)")
        }
    }

    /// Maps geojsonhint's messages to the categories this importer reports them in.
    static func expectedCategories(_ message: String) -> Set<String> {
        let m = message.lowercased()
        if m.contains("parse error") || m.contains("root of a geojson") { return ["refused"] }
        if m.contains("\"features\" member") && (m.contains("required") || m.contains("should be an array")) { return ["refused"] }
        if m.contains("case sensitive") || m.contains("is unknown") { return ["refused", ImportReport.Issue.invalidGeometry.rawValue, ImportReport.Issue.badFeature.rawValue] }
        if m.contains("\"type\" member") { return ["refused", ImportReport.Issue.badFeature.rawValue, ImportReport.Issue.invalidGeometry.rawValue] }
        if m.contains("\"geometry\" member required") { return [ImportReport.Issue.badMember.rawValue, ImportReport.Issue.nullGeometry.rawValue] }
        if m.contains("type=feature") || m.contains("every feature must be an object") { return [ImportReport.Issue.badFeature.rawValue] }
        if m.contains("duplicate") || m.contains("cannot contain") || m.contains("properties") || m.contains("\"id\"") || m.contains("bbox") {
            return [ImportReport.Issue.badMember.rawValue, "refused"]
        }
        if m.contains("first and last positions") { return [ImportReport.Issue.unclosedRing.rawValue] }
        if m.contains("right-hand rule") { return [ImportReport.Issue.windingOrder.rawValue] }
        if m.contains("more than 3 elements") || m.contains("geometrycollection") { return [ImportReport.Issue.coercedValue.rawValue, ImportReport.Issue.invalidGeometry.rawValue] }
        if m.contains("position") && !m.contains("linearring") { return [ImportReport.Issue.badCoordinate.rawValue, ImportReport.Issue.invalidGeometry.rawValue] }
        return [ImportReport.Issue.invalidGeometry.rawValue, ImportReport.Issue.badCoordinate.rawValue]
    }

    @Test(.enabled(if: Fixtures.available, "needs ../shared/fixtures"))
    func reportsEveryBadGeojsonhintCaseInItsCategory() throws {
        let folder = Fixtures.path("geojsonhint/bad")
        var checked = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() where name.hasSuffix(".geojson") {
            let base = String(name.dropLast(8))
            guard let resultData = FileManager.default.contents(atPath: "\(folder)/\(base).result"),
                let results = try JSONSerialization.jsonObject(with: resultData) as? [[String: Any]]
            else { continue }
            let messages = results.compactMap { $0["message"] as? String }
            var reported: Set<String> = []
            do {
                let (reader, _) = try readAll("\(folder)/\(name)")
                reported = Set(reader.report.entries.keys.map(\.rawValue))
            } catch let error as DataError {
                reported = ["refused"]
                #expect(error.path.hasSuffix(name), "the error names the file")
            }
            for message in messages {
                let expected = Self.expectedCategories(message)
                #expect(!reported.isDisjoint(with: expected), "\(name): \"\(message)\" expected in \(expected.sorted()), reported \(reported.sorted())")
            }
            if messages.isEmpty { #expect(!reported.contains("refused"), "\(name) has no problem") }
            checked += 1
        }
        #expect(checked >= 40)
    }

    @Test func featureIDPolicyKeepsBothIDs() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/ids.geojson"
            try writeFile(path, """
                {"type":"FeatureCollection","features":[
                 {"type":"Feature","id":"A-1","properties":{"id":7,"name":"x"},"geometry":{"type":"Point","coordinates":[1,2]}},
                 {"type":"Feature","id":12,"properties":{"name":"y"},"geometry":{"type":"Point","coordinates":[3,4]}}]}
                """)
            let (reader, features) = try readAll(path)
            #expect(reader.schema.fields.map(\.name) == ["feature_id", "id", "name"])
            #expect(reader.schema.fields[0].type == .text)
            #expect(features[0].values == [.text("A-1"), .integer(7), .text("x")])
            #expect(features[1].values == [.text("12"), .null, .text("y")])
        }
    }

    @Test func inferFieldTypesAndPromoteMixedPolygonsToMulti() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/mixed.geojson"
            try writeFile(path, """
                {"type":"FeatureCollection","features":[
                 {"type":"Feature","properties":{"n":1,"r":1,"d":"2024-01-31","b":true,"o":{"a":[1]}},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}},
                 {"type":"Feature","properties":{"n":2,"r":2.5,"d":"2024-02-01","b":false,"o":null},"geometry":{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]]]}},
                 {"type":"Feature","properties":{"n":3},"geometry":{"type":"Point","coordinates":[0,0]}}]}
                """)
            let (reader, features) = try readAll(path)
            // Points beside polygons: a layer of any type, as GDAL reads it.
            #expect(reader.schema.geometryType == .geometry)
            #expect(reader.schema.fields.map(\.type) == [.integer, .real, .date, .boolean, .text])
            #expect(features.count == 3)
            #expect(features[0].values[4] == .text("{\"a\":[1]}"))
            let polygons = path.replacingOccurrences(of: "mixed", with: "polygons")
            try writeFile(polygons, String(decoding: try readFile(path), as: UTF8.self).replacingOccurrences(of: ",\n {\"type\":\"Feature\",\"properties\":{\"n\":3},\"geometry\":{\"type\":\"Point\",\"coordinates\":[0,0]}}", with: ""))
            let (polygonReader, polygonFeatures) = try readAll(polygons)
            #expect(polygonReader.schema.geometryType == .multiPolygon)
            #expect(polygonFeatures.count == 2)
            #expect(polygonFeatures.allSatisfy { $0.geometry?.type == .multiPolygon })
        }
    }

    @Test func refusesAFileThatIsNotJSONWithItsNameAndLine() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/broken.geojson"
            try writeFile(path, "{\"type\": \"FeatureCollection\",\n \"features\": [ {\"type\": \"Feature\" \"x\": 1} ]}")
            #expect {
                _ = try GeoJSONReader(path: path)
            } throws: { error in
                let text = String(describing: error)
                return text.contains("broken.geojson") && text.contains("line 2")
            }
        }
    }

    @Test func hostileNestingIsRefusedWithoutCrashing() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/deep.geojson"
            try writeFile(path, "{\"type\":\"Feature\",\"properties\":" + String(repeating: "[", count: 100_000) + "}")
            #expect(throws: DataError.self) { _ = try GeoJSONReader(path: path) }
        }
    }
}
