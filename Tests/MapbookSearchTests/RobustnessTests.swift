import Foundation
import MapbookSupport
import MapbookTestSupport
import Testing
@testable import MapbookSearch

/// Queries made of SQL and FTS syntax, empty and huge queries, and damaged index files.
@Suite struct RobustnessTests {
    static let hostile = [
        "\"linden\"", "'linden'", "linden*", "*", "**", "NEAR(linden ash)", "NEAR(", "linden OR ash", "linden AND ash", "NOT linden",
        "'; DROP TABLE trees; --", "\"; DROP TABLE words; --", "linden); DELETE FROM meta; --", "%", "_", "\\", "\u{0}", "\u{0}linden",
        "linden\u{0}ash", "()", "^linden", "col:linden", "{linden}", "linden -ash", "+linden", "🙂 linden", "\u{202E}nedil",
        "", " ", String(repeating: "a", count: 5000), String(repeating: "linden ", count: 700), String(repeating: "9", count: 5000),
        (0..<5000).map { String(UnicodeScalar(UInt8(33 + $0 % 90))) }.joined(),
    ]

    @Test(Fixtures.required)
    func hostileQueriesAreAnsweredNormally() throws {
        let f = try SearchFixture.portland()
        let c = f.composite
        for q in Self.hostile {
            // No error may leak out of SQLite, and nothing may crash.
            _ = try c.suggest(q, max: 10)
            _ = try c.geocode(q, max: 10)
        }
        // Quotes and operators are only punctuation: the words are still searched.
        #expect(try c.geocode("\"linden\"", max: 1).first?.matchedText == "linden")
        #expect(try c.geocode("linden*", max: 1).first?.matchedText == "linden")
        #expect(try c.geocode("'; DROP TABLE trees; --", max: 1).isEmpty)
        #expect(try c.geocode("", max: 5).isEmpty)
        #expect(try c.suggest(String(repeating: "a", count: 5000), max: 5).isEmpty)
        // The package's data is untouched and still answers.
        #expect(try c.geocode("linden", max: 1).first?.matchedText == "linden")
        #expect(try c.suggest("lind", max: 0).isEmpty)
    }

    @Test func indexBuildsAreByteIdentical() throws {
        try withTemporaryDirectory { dir in
            var entries: [LocatorIndexEntry] = []
            for i in 0..<5000 {
                let texts = ["Main St", "Oak Ave", "HYD-\(i)", "São Paulo \(i % 7)"]
                let lon = Double(i % 360) - 180, lat = Double(i % 170) - 85
                entries.append(LocatorIndexEntry(fid: Int64(i + 1), text: texts[i % 4], longitude: lon, latitude: lat, rank: Double(i % 13)))
            }
            _ = try LocatorIndexBuilder.build(entries, hasRank: true, to: dir + "/a.sqlite")
            _ = try LocatorIndexBuilder.build(entries.reversed(), hasRank: true, to: dir + "/b.sqlite")
            #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/a.sqlite")) == Data(contentsOf: URL(fileURLWithPath: dir + "/b.sqlite")))
            // Nothing is left beside it.
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["a.sqlite", "b.sqlite"])
        }
    }

    @Test func anIndexThatIsNotOneSaysSo() throws {
        try withTemporaryDirectory { dir in
            let garbage = dir + "/index.sqlite"
            try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: garbage))
            #expect { try LocatorIndex(path: garbage) } throws: { error in
                guard let error = error as? LocatorError, case .sqlite(.notADatabase) = error.kind else { return false }
                return error.description.contains(garbage)
            }
            let other = dir + "/other.sqlite"
            let db = try SQLiteDatabase(writablePath: other)
            try db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value); INSERT INTO meta VALUES ('format', 'x')")
            try db.close()
            #expect { try LocatorIndex(path: other) } throws: { error in
                guard let error = error as? LocatorError, error.kind == .wrongFormat else { return false }
                return error.description.contains(other)
            }
        }
    }

    /// Every blob of a real index damaged in turn: each query either answers or throws a
    /// LocatorError naming the file; none crashes.
    @Test func damagedBlocksGiveErrorsNotCrashes() throws {
        try withTemporaryDirectory { dir in
            let entries = (0..<1200).map { i in LocatorIndexEntry(fid: Int64(i + 1), text: "Street \(i % 50) No \(i) Cascade\(i % 9)", longitude: -122, latitude: 45) }
            let path = dir + "/index.sqlite"
            _ = try LocatorIndexBuilder.build(entries, hasRank: false, to: path)
            var rng = SplitMix64(seed: 7)
            for (table, column) in [("words", "terms"), ("words", "postings"), ("numbers", "terms"), ("numbers", "postings"), ("groups", "data"), ("entries", "fids"), ("entries", "positions")] {
                for trial in 0..<4 {
                    let copy = dir + "/damaged.sqlite"
                    try? FileManager.default.removeItem(atPath: copy)
                    try FileManager.default.copyItem(atPath: path, toPath: copy)
                    let db = try SQLiteDatabase(writablePath: copy, create: false)
                    let key = table == "words" || table == "numbers" ? "first" : "chunk"
                    for row in try db.query("SELECT \(key), \(column) FROM \(table)") {
                        guard case .blob(var bytes) = row[1] else { continue }
                        if trial % 2 == 0, !bytes.isEmpty {
                            for _ in 0..<4 { bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next()) }
                        } else {
                            bytes = Array(bytes.prefix(Int(rng.next() % UInt64(bytes.count + 1))))
                        }
                        try db.query("UPDATE \(table) SET \(column) = ? WHERE \(key) = ?", [.blob(bytes), row[0]])
                    }
                    try db.close()
                    guard let index = try? LocatorIndex(path: copy) else { continue }
                    let query = IndexQuery(index: index)
                    for q in ["street 7", "cascade3 no 12", "casacde", "no 1", "stret"] {
                        do {
                            let tokens = SingleFieldLocator.queryTokens(q)
                            let groups = try query.run(tokens, near: (-122, 45), limit: 10) { _ in nil }
                            for g in groups { _ = try index.group(g.group) }
                        } catch let e as LocatorError {
                            #expect(e.path == copy)
                        }
                    }
                }
            }
        }
    }
}
