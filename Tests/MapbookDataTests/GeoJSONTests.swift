import Foundation
import MapbookSupport
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

    /// How the importer ends on `path`: nil when it reads the file (whatever it reports),
    /// else the kind of JSON error it refuses the file with (nil too for a GeoJSON refusal).
    func importerJSONError(_ path: String) throws -> JSONError? {
        do {
            _ = try readAll(path)
            return nil
        } catch let error as DataError {
            #expect(error.path == path, "the error names the file")
            return error.json
        }
    }

    @Test(.enabled(if: Fixtures.available, "needs ../shared/fixtures"))
    func theModelParserAndTheImporterAgreeOnEveryGeojsonhintCase() throws {
        var checked = 0, refused = 0
        for folder in ["good", "bad"] {
            let dir = Fixtures.path("geojsonhint/" + folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: dir).sorted() where name.hasSuffix(".geojson") {
                let path = dir + "/" + name
                let bytes = try readFile(path)
                let model = Result { () throws(JSONError) in try JSONParser.parse(bytes, path: path) }
                let chunked = Result { () throws(JSONError) in try JSONParser.parse(contentsOf: path, chunkSize: 5) }
                let importer = try importerJSONError(path)
                switch (model, chunked) {
                case (.success(let a), .success(let b)):
                    #expect(String(reflecting: a) == String(reflecting: b), "\(name): read alike whole and in chunks")
                    #expect(importer == nil, "\(name): the importer refuses JSON the model reads: \(importer.map(String.init(describing:)) ?? "")")
                case (.failure(let a), .failure(let b)):
                    refused += 1
                    #expect(a.kind == b.kind && a.line == b.line, "\(name): refused alike whole and in chunks")
                    #expect(importer?.kind == a.kind, "\(name): the importer refuses with \(a.kind)")
                    #expect(importer?.line == a.line && importer?.column == a.column, "\(name): at the same place")
                    #expect(a.path == path && "\(a)".hasPrefix(path), "\(name): the error names the file")
                default:
                    Issue.record("\(name): read \(model) whole but \(chunked) in chunks")
                }
                checked += 1
            }
        }
        #expect(checked >= 60)
        #expect(refused >= 1, "bad-json.geojson is not JSON")
    }

    @Test(arguments: JSONRuleCase.all.filter(\.isValue))
    func theImporterReadsEachJSONRuleAsTheModelParserDoes(_ rule: JSONRuleCase) throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/rule.geojson"
            let text = Array(#"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"v":"#.utf8)
                + rule.text + Array("}}".utf8)
            try writeFile(path, text)
            let model = Result { () throws(JSONError) in try JSONParser.parse(text, path: path) }
            switch (model, try importerJSONError(path)) {
            case (.success(let document), nil):
                let value = try #require(document.objectValue?.object("properties")?["v"])
                let (_, features) = try readAll(path)
                switch value {
                case .string(let s): #expect(features.first?.values == [.text(s)], "\(rule)")
                case .integer(let i): #expect(features.first?.values == [.integer(i)], "\(rule)")
                case .number(let d): #expect(features.first?.values == [.real(d)], "\(rule)")
                default: #expect(features.count == 1, "\(rule)")
                }
            case (.failure(let expected), let error?):
                #expect(error.kind == expected.kind && error.line == expected.line && error.column == expected.column, "\(rule): \(error)")
            case (let model, let error):
                Issue.record("\(rule): the model parser \(model), the importer \(error.map(String.init(describing:)) ?? "read it")")
            }
        }
    }

    @Test func theImporterNestsAsDeepAsTheModelParser() throws {
        try withTemporaryDirectory { dir in
            // The root object and "properties" are two levels; the arrays make up the rest.
            for (arrays, readable) in [(JSONLexer.maximumDepth - 2, true), (JSONLexer.maximumDepth - 1, false)] {
                let path = dir + "/deep\(arrays).geojson"
                try writeFile(path, #"{"type":"Feature","geometry":null,"properties":{"v":"# + String(repeating: "[", count: arrays) + String(repeating: "]", count: arrays) + "}}")
                #expect(((try? JSONParser.parse(readFile(path))) != nil) == readable)
                let error = try importerJSONError(path)
                #expect(readable ? error == nil : error?.kind == .tooDeep, "\(arrays) arrays")
            }
        }
    }

    @Test func aCoordinateBeyondADoubleIsReportedNotStored() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/far.geojson"
            try writeFile(path, """
                {"type":"FeatureCollection","features":[
                 {"type":"Feature","properties":{"v":1e400},"geometry":{"type":"Point","coordinates":[1e400,2]}},
                 {"type":"Feature","properties":{"v":1},"geometry":{"type":"Point","coordinates":[1,2]}}]}
                """)
            let (reader, features) = try readAll(path)
            #expect(features.count == 1)
            #expect(reader.report.count(.badCoordinate) == 1)
        }
    }

    @Test func aByteOrderMarkIsSkipped() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/bom.geojson"
            try writeFile(path, [0xEF, 0xBB, 0xBF] + Array(#"{"type":"Point","coordinates":[1,2]}"#.utf8))
            let (_, features) = try readAll(path)
            #expect(features.count == 1)
        }
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
                guard let error = error as? DataError, error.kind == .json(.unexpectedCharacter) else { return false }
                let text = String(describing: error)
                return text.contains("broken.geojson") && text.contains("line 2")
            }
        }
    }

    @Test func hostileNestingIsRefusedWithoutCrashing() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/deep.geojson"
            try writeFile(path, "{\"type\":\"Feature\",\"properties\":" + String(repeating: "[", count: 100_000) + "}")
            #expect { _ = try GeoJSONReader(path: path) } throws: { ($0 as? DataError)?.kind == .json(.tooDeep) }
        }
    }
}
