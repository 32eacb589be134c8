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
            let blobs = [
                ("words", "terms"), ("words", "postings"), ("numbers", "terms"), ("numbers", "postings"), ("groups", "data"), ("entries", "fids"), ("entries", "positions"),
                ("word_list", "text"), ("word_list", "ends"), ("word_list", "counts"), ("word_list", "groups"),
            ]
            for (table, column) in blobs {
                for trial in 0..<4 {
                    let copy = dir + "/damaged.sqlite"
                    try? FileManager.default.removeItem(atPath: copy)
                    try FileManager.default.copyItem(atPath: path, toPath: copy)
                    let db = try SQLiteDatabase(writablePath: copy, create: false)
                    let key = table == "words" || table == "numbers" ? "first" : table == "word_list" ? "rowid" : "chunk"
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

    /// An index written before `word_list` existed (its words only in blocks) answers every
    /// query as one with it: the same groups in the same order, for ASCII and other scripts.
    @Test func indexesWithoutTheFlatWordListAnswerTheSame() throws {
        try withTemporaryDirectory { dir in
            let names = ["Main Street", "Maine Stret", "Москва Река", "Αθήνα Οδός", "北京 路", "Oak Avenue", "Cascade Lane", "HYD-\(7)"]
            var entries: [LocatorIndexEntry] = []
            for i in 0..<3000 {
                let text = "\(names[i % names.count]) \(i % 40) W\(i % 300)"
                let lon = -122 + Double(i % 97) / 100, lat = 45 + Double(i % 89) / 100
                entries.append(LocatorIndexEntry(fid: Int64(i + 1), text: text, longitude: lon, latitude: lat))
            }
            // Words on one feature each: terms with a single group.
            entries += ["Zeta Alpha", "Zeta Omega"].enumerated().map { LocatorIndexEntry(fid: Int64(5000 + $0.offset), text: $0.element) }
            let path = dir + "/index.sqlite", old = dir + "/old.sqlite"
            _ = try LocatorIndexBuilder.build(entries, hasRank: false, to: path)
            try FileManager.default.copyItem(atPath: path, toPath: old)
            let db = try SQLiteDatabase(writablePath: old, create: false)
            try db.execute("DROP TABLE word_list")
            try db.close()
            let flat = try LocatorIndex(path: path), blocks = try LocatorIndex(path: old)
            #expect(try flat.words().count == blocks.words().count)
            var answered = 0
            for q in ["main", "mai", "maine stret", "москва", "моск", "αθηνα", "北京", "cascde lane 7", "oak w29", "w1", "street 12", "hyd 7", "lane"] {
                let tokens = SingleFieldLocator.queryTokens(q)
                let a = try IndexQuery(index: flat).run(tokens, near: (-121.5, 45.4), limit: 10) { _ in nil }
                let b = try IndexQuery(index: blocks).run(tokens, near: (-121.5, 45.4), limit: 10) { _ in nil }
                #expect(a.map(\.group) == b.map(\.group), "\(q)")
                #expect(a.map(\.distance) == b.map(\.distance), "\(q)")
                if !a.isEmpty { answered += 1 }
            }
            #expect(answered >= 12)

            // Validation reads both and names a word list that disagrees with the blocks (two
            // terms' groups swapped: each table valid alone).
            _ = try flat.contents()
            let swapped = dir + "/swapped.sqlite"
            try FileManager.default.copyItem(atPath: path, toPath: swapped)
            let edit = try SQLiteDatabase(writablePath: swapped, create: false)
            guard case .blob(let counts)? = try edit.scalar("SELECT counts FROM word_list"), case .blob(var groups)? = try edit.scalar("SELECT groups FROM word_list") else {
                Issue.record("no word_list")
                return
            }
            let singles = stride(from: 0, to: counts.count, by: 4).filter { counts[$0] == 1 && counts[$0 + 1...$0 + 3].allSatisfy { $0 == 0 } }
            let (a, b) = (singles[0], singles.first { groups[$0..<$0 + 4] != groups[singles[0]..<singles[0] + 4] }!)
            for k in 0..<4 { groups.swapAt(a + k, b + k) }
            try edit.query("UPDATE word_list SET groups = ?", [.blob(groups)])
            try edit.close()
            #expect { try LocatorIndex(path: swapped).contents() } throws: { error in
                (error as? LocatorError)?.kind == .damaged && (error as? LocatorError)?.path == swapped
            }
        }
    }
}
