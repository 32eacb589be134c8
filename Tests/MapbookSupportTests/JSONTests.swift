#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MapbookSupport
import MapbookTestSupport
import Testing

@Suite struct JSONTests {
    @Test func keepsKeyOrderAndIntegerness() throws {
        let text = #"{"z": 1, "a": [1, 2.5, -0, 1e3], "m": {"y": null, "b": true}}"#
        let value = try JSONParser.parse(text)
        #expect(value.objectValue?.keys == ["z", "a", "m"])
        #expect(value.objectValue?["a"]?.arrayValue?[0] == .integer(1))
        #expect(value.objectValue?["a"]?.arrayValue?[3] == .number(1000))
        #expect(JSONWriter.string(value, style: .compact) == #"{"z":1,"a":[1,2.5,0,1000],"m":{"y":null,"b":true}}"#)
    }

    /// A repeated key keeps its first place and its last value, in small objects (kept as
    /// parsed when no key repeats) and in large ones (looked up through an index).
    @Test(arguments: [3, 40])
    func aRepeatedKeyKeepsItsFirstPlaceAndLastValue(_ size: Int) throws {
        let members = (0..<size).map { #""k\#($0)": \#($0)"# } + [#""k1": "last""#]
        let object = try #require(try JSONParser.parse("{" + members.joined(separator: ", ") + "}").objectValue)
        #expect(object.keys == (0..<size).map { "k\($0)" })
        #expect(object["k1"] == .string("last") && object["k0"] == .integer(0) && object["k\(size - 1)"] == .integer(Int64(size - 1)))
        #expect(try JSONParser.parse(#"{"a": 1, "b": 2}"#).objectValue?.keys == ["a", "b"])
    }

    @Test(arguments: [0.1, 1e-7, 123456.789, -2.5e300, 0.2985821417799085, 78271.516964])
    func numbersReadBackExactly(_ d: Double) throws {
        let text = JSONWriter.string(.number(d), style: .compact)
        #expect(try JSONParser.parse(text).doubleValue == d)
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let value = try JSONParser.parse(#""a\"b\\c\/d\n\u00e9\ud83d\ude00""#)
        #expect(value.stringValue == "a\"b\\c/d\né😀")
        let written = JSONWriter.string(.string("tab\there \u{1}"), style: .compact)
        #expect(written == #""tab\there \u0001""#)
    }

    @Test(arguments: [
        ("{\"a\": 1,}", 1, 9), ("[1, 2", 1, 6), ("{\"a\" 1}", 1, 6), ("\n\n  nul", 3, 3), ("\"abc", 1, 1), ("01", 1, 2),
    ])
    func reportsWhereTheSyntaxIsWrong(_ input: (String, Int, Int)) {
        #expect {
            try JSONParser.parse(input.0)
        } throws: { error in
            let e = error as! JSONError
            return e.line == input.1 && e.column == input.2
        }
    }

    /// Project files link sample data in place (the Portland sample's sources are links into
    /// the fixtures): a file read through a link is read, a folder is refused by kind.
    @Test func readsAFileThroughALinkAndRefusesAFolder() throws {
        try withTemporaryDirectory { dir in
            try #"{"type": "FeatureCollection", "features": []}"#.write(toFile: dir + "/real.json", atomically: false, encoding: .utf8)
            #expect(symlink(dir + "/real.json", dir + "/link.json") == 0)
            let value = try JSONParser.parse(contentsOf: dir + "/link.json", chunkSize: 8)
            #expect(value.objectValue?["type"]?.stringValue == "FeatureCollection")
            #expect {
                try JSONParser.parse(contentsOf: dir)
            } throws: { error in
                (error as? JSONError)?.kind == .unreadable
            }
        }
    }

    @Test(arguments: JSONRuleCase.all)
    func readsEachRuleAlikeInMemoryAndFromAFileInChunks(_ rule: JSONRuleCase) throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/case.json"
            try writeFile(path, rule.text)
            let inMemory = Result { () throws(JSONError) in try JSONParser.parse(rule.text, path: path) }
            rule.expect(inMemory, path: path)
            for chunkSize in [1, 2, 3, 7, 1 << 20] {
                let streamed = Result { () throws(JSONError) in try JSONParser.parse(contentsOf: path, chunkSize: chunkSize) }
                rule.expect(streamed, path: path, " in chunks of \(chunkSize)")
                if case .failure(let a) = inMemory, case .failure(let b) = streamed {
                    #expect(a.line == b.line, "\(rule) in chunks of \(chunkSize)")
                }
            }
        }
    }

    @Test func errorsNameTheFileLineAndColumnInCharacters() throws {
        let text = "{\"a\": [\"é€😀\",\n  \"b\", x]}"
        #expect {
            try JSONParser.parse(text, path: "doc.json")
        } throws: { error in
            let e = error as! JSONError
            return e.kind == .unexpectedCharacter && e.line == 2 && e.column == 8
                && e.description.hasPrefix("doc.json, line 2, column 8: ")
        }
        // The same place when the line is split over chunks of a file.
        try withTemporaryDirectory { dir in
            let path = dir + "/doc.json"
            try writeFile(path, "[\"é€😀\", x]")
            for chunkSize in [1, 2, 3, 5, 1 << 20] {
                #expect {
                    try JSONParser.parse(contentsOf: path, chunkSize: chunkSize)
                } throws: { error in
                    let e = error as! JSONError
                    return e.kind == .unexpectedCharacter && e.line == 1 && e.column == 9 && e.path == path
                }
            }
        }
    }

    @Test func aFileThatCannotBeOpenedIsUnreadable() {
        #expect {
            try JSONParser.parse(contentsOf: "/nonexistent/doc.json")
        } throws: { error in
            let e = error as! JSONError
            return e.kind == .unreadable && e.path == "/nonexistent/doc.json" && "\(e)".hasPrefix("/nonexistent/doc.json: cannot open")
        }
    }

    @Test func refusesHostileNestingWithoutCrashing() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONError.self) { try JSONParser.parse(deep) }
    }

    @Test func objectEqualityIgnoresOrderButWriterKeepsIt() throws {
        let a = try JSONParser.parse(#"{"x": 1, "y": 2}"#)
        let b = try JSONParser.parse(#"{"y": 2, "x": 1.0}"#)
        #expect(a == b)
        #expect(JSONWriter.string(b, style: .compact) == #"{"y":2,"x":1}"#)
    }

    @Test(arguments: [3, 40])
    func aRepeatedKeyKeepsItsPlaceAndTheLastValue(_ size: Int) throws {
        let members = (0..<size).map { "\"k\($0)\": \($0)" } + ["\"k1\": \"last\""]
        let object = try #require(try JSONParser.parse("{" + members.joined(separator: ", ") + "}").objectValue)
        #expect(object.count == size)
        #expect(object.keys[1] == "k1")
        #expect(object["k1"] == "last")
    }

    @Test func largeObjectsLookUpByIndex() {
        var object = JSONObject()
        for i in 0..<1000 { object["k\(i)"] = .int(i) }
        object["k500"] = "replaced"
        object["k10"] = nil
        #expect(object.count == 999)
        #expect(object["k500"] == "replaced")
        #expect(object["k10"] == nil)
        #expect(object["k999"] == .int(999))
        #expect(object.keys[499] == "k500")
    }
}

@Suite struct SupportTests {
    @Test(arguments: [
        ("2026-11-22", Int64(1_795_305_600)), ("1970-01-01T00:00:00Z", 0), ("2000-02-29T12:30:15Z", 951_827_415),
        ("2027-01-01T01:00:00+01:00", 1_798_761_600), ("1969-12-31T23:59:59Z", -1),
    ])
    func parsesAndFormatsISODates(_ input: (String, Int64)) {
        #expect(ISODate.parse(input.0) == input.1)
        if input.0.hasSuffix("Z") { #expect(ISODate.format(seconds: input.1) == input.0) }
    }

    @Test(arguments: ["2026-13-01", "2026-02-30", "2026-1-1", "tomorrow", "2026-01-01T25:00Z"])
    func refusesImpossibleDates(_ text: String) {
        #expect(ISODate.parse(text) == nil)
    }

    @Test func base64RoundTripsEveryLength() {
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        }
        #expect(Base64.encode(Array("Man".utf8)) == "TWFu")
        #expect(Base64.decode("not base64!") == nil)
    }

    @Test func webMercatorRoundTrips() {
        let (x, y) = WebMercator.project(longitude: -88.15, latitude: 41.75)
        let back = WebMercator.unproject(x: x, y: y)
        #expect(abs(back.longitude + 88.15) < 1e-9 && abs(back.latitude - 41.75) < 1e-9)
        #expect(abs(WebMercator.project(longitude: 180, latitude: 0).x - WebMercator.halfWorld) < 1e-6)
    }
}
