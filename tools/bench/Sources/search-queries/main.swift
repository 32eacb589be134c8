// Replays the search benchmark's queries in a plain process, for profilers (perf, callgrind)
// and for looking at single queries:
//
//     search-queries suggest|geocode|fts5 [FIRST [COUNT]] [-v] [--only FILE]
//     search-queries first [RUNS]
//
// first: opens the package and its composite locator and asks the first query's suggestions,
// RUNS times (default 20), as a field user typing as soon as the map opens; prints the times.
//
// --only FILE: just the queries whose numbers FILE lists, one a line (the slow ones, say).
//
// Uses the files SearchBenchmark made (SEARCH_BENCH_DIR); builds any that are missing.
// Prints each query with its time and first result with -v, else a summary.

#if canImport(Glibc)
import Glibc
#endif
import MapbookSearch
import MapbookSupport
import SearchBenchData

/// Opening and the first suggestion, `runs` times: the open's and the query's times apart.
func openAndSuggest(_ fixture: SearchFixture, runs: Int) -> Int32 {
    var opens: [Double] = [], firsts: [Double] = []
    do {
        try fixture.ensurePackage()
        let q = fixture.queries[0]
        for _ in 0..<max(1, runs) {
            let start = now()
            let locator = try fixture.openLocator()
            let opened = now()
            let texts = try locator.suggest(q.text, near: q.near, max: 10).map(\.text)
            opens.append(opened - start)
            firsts.append(now() - opened)
            if texts.isEmpty { print("search-queries: '\(q.text)' found nothing"); return 1 }
        }
    } catch {
        print("search-queries: \(error)")
        return 1
    }
    func median(_ t: [Double]) -> Double { t.sorted()[t.count / 2] * 1000 }
    let total = zip(opens, firsts).map { $0 + $1 }
    print("first: \(runs) runs, open p50 \(median(opens)) ms, first suggestion p50 \(median(firsts)) ms, both p50 \(median(total)) ms (query '\(fixture.queries[0].text)')")
    return 0
}

/// A function, not top-level code, so its variables are locals.
func run() -> Int32 {
    var arguments = Array(CommandLine.arguments.dropFirst())
    let verbose = arguments.contains("-v")
    arguments.removeAll { $0 == "-v" }
    var only: Set<Int>?
    if let i = arguments.firstIndex(of: "--only"), i + 1 < arguments.count {
        only = Set(readLines(arguments[i + 1]).compactMap { Int($0) })
        arguments.removeSubrange(i...i + 1)
    }
    guard let mode = arguments.first, ["suggest", "geocode", "fts5", "first"].contains(mode) else {
        print("usage: search-queries suggest|geocode|fts5 [FIRST [COUNT]] [-v] [--only FILE] | first [RUNS]")
        return 2
    }
    let fixture = SearchFixture.shared
    if mode == "first" { return openAndSuggest(fixture, runs: arguments.count > 1 ? Int(arguments[1]) ?? 20 : 20) }
    let first = arguments.count > 1 ? Int(arguments[1]) ?? 0 : 0
    let count = arguments.count > 2 ? Int(arguments[2]) ?? fixture.queries.count : fixture.queries.count - first
    let queries = fixture.queries[first..<min(fixture.queries.count, first + count)].enumerated()
        .filter { only?.contains(first + $0.offset) ?? true }.map { (first + $0.offset, $0.element) }
    var hits = HitCounter()
    var times: [Double] = []
    do {
        if mode == "fts5" {
            try fixture.ensureFTS()
            let db = try SQLiteDatabase(readOnlyPath: fixture.ftsPath)
            let statement = try db.prepare("SELECT rowid, text FROM t WHERE t MATCH ? ORDER BY rank LIMIT 10")
            for (i, q) in queries {
                let start = now()
                var texts: [String] = []
                if let match = SearchFixture.ftsQuery(q.text) {
                    try statement.bind([.text(match)])
                    while try statement.step() { texts.append(statement.column(1).text ?? "") }
                    statement.reset()
                }
                times.append(now() - start)
                hits.add(q, texts: texts)
                if verbose { print("\(i)\t\(q.kind.rawValue)\t\(Int(times.last! * 1e6)) us\t\(q.text)\t-> \(texts.first ?? "-")\t(want \(q.expected))") }
            }
        } else {
            try fixture.ensurePackage()
            let locator = try fixture.openLocator()
            _ = try locator.suggest("Main", max: 10)
            for (i, q) in queries {
                // Printed before the query runs, so a crash shows which query it was.
                if verbose { print("\(i)\t\(q.kind.rawValue)\t\(q.text)", terminator: "\t") }
                let start = now()
                let texts = mode == "suggest"
                    ? try locator.suggest(q.text, near: q.near, max: 10).map(\.text)
                    : try locator.geocode(q.text, near: q.near, max: 10).map(\.matchedText)
                times.append(now() - start)
                hits.add(q, texts: texts)
                if verbose { print("\(Int(times.last! * 1e6)) us\t-> \(texts.first ?? "-")\t(want \(q.expected))") }
            }
        }
    } catch {
        print("search-queries: \(error)")
        return 1
    }
    times.sort()
    func ms(_ p: Double) -> Double { times.isEmpty ? 0 : times[min(times.count - 1, Int((p * Double(times.count)).rounded(.up)) - 1)] * 1000 }
    print("\(mode): \(times.count) queries, total \(Int(times.reduce(0, +) * 1000)) ms, p50 \(ms(0.5)) ms, p99 \(ms(0.99)) ms, max \(ms(1)) ms; \(hits.summary)")
    return 0
}

func readLines(_ path: String) -> [String] {
    guard let f = fopen(path, "r") else { return [] }
    defer { fclose(f) }
    var out: [String] = []
    var buffer = [CChar](repeating: 0, count: 256)
    while fgets(&buffer, 256, f) != nil {
        out.append(String(cString: buffer).split(separator: "\n").first.map(String.init) ?? "")
    }
    return out
}

exit(run())
