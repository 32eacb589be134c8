// Search at 1,000,000 entries: the package's composite locator (MapbookSearch) against a plain
// SQLite FTS5 table holding the same texts, with the same 10,000 queries, in one run
// (issue 5; DESIGN.md sections 3.5 and 9).
//
//     swift package --package-path tools/bench benchmark --target SearchBenchmark
//
// or tools/bench/search-vs-fts5.sh, which also prints the report the benchmarks write
// (sizes, hit@1 and hit@5 by kind of query) from the work folder
// (SEARCH_BENCH_DIR, default /tmp/mapbook-search-bench-1000000).
//
// Each benchmark runs in its own process, in the order of their names. A query benchmark
// is one query per iteration, so its percentiles are over the 10,000 queries.

#if canImport(Glibc)
import Glibc
#endif
import Benchmark
import MapbookSearch
import MapbookSupport
import SearchBenchData

extension BenchmarkMetric {
    static var indexBytes: BenchmarkMetric { BenchmarkMetric.custom("index bytes (sum of index.sqlite)") }
    static var rawTextBytes: BenchmarkMetric { BenchmarkMetric.custom("raw text bytes (UTF-8 of the values)") }
    static var ftsBytes: BenchmarkMetric { BenchmarkMetric.custom("FTS5 file bytes") }
    static var hit1: BenchmarkMetric { BenchmarkMetric.custom("hit@1 (per mille)", polarity: .prefersLarger) }
    static var hit5: BenchmarkMetric { BenchmarkMetric.custom("hit@5 (per mille)", polarity: .prefersLarger) }
}

/// What a query benchmark keeps between iterations.
final class QueryRun: @unchecked Sendable {
    let fixture = SearchFixture.shared
    var hits = HitCounter()
    var timings: [GeneratedQuery.Kind: [Double]] = [:]
    var locator: CompositeLocator?
    var fts: SQLiteDatabase?
    var ftsStatement: SQLiteStatement?

    func record(_ query: GeneratedQuery, seconds: Double, texts: [String]) {
        hits.add(query, texts: texts)
        timings[query.kind, default: []].append(seconds)
    }

    /// Hit rates and latency by kind of query, for the report.
    func finish(_ name: String, _ benchmark: Benchmark) {
        benchmark.measurement(.hit1, hits.total == 0 ? 0 : hits.at1 * 1000 / hits.total)
        benchmark.measurement(.hit5, hits.total == 0 ? 0 : hits.at5 * 1000 / hits.total)
        var line = "\(name): \(hits.total) queries; \(hits.summary)"
        for kind in GeneratedQuery.Kind.allCases {
            guard var t = timings[kind], !t.isEmpty else { continue }
            t.sort()
            func ms(_ p: Double) -> String {
                let v = t[min(t.count - 1, Int((p * Double(t.count)).rounded(.up)) - 1)] * 1000
                return String(Double(Int(v * 1000)) / 1000)
            }
            line += "; \(kind.rawValue) p50 \(ms(0.5)) ms, p99 \(ms(0.99)) ms, max \(ms(1.0)) ms"
        }
        fixture.report(line)
    }
}

let benchmarks: @Sendable () -> Void = {
    let queryConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal, .hit1, .hit5], timeUnits: .microseconds, warmupIterations: 0,
        maxDuration: .seconds(1200), maxIterations: SearchFixture.shared.queryCount)
    let builds = environment("SEARCH_BENCH_BUILDS").flatMap { Int($0) } ?? 3

    // (a) Build: the three participants' indexes from data.gpkg, and the package written
    // (every entry hashed), as the packager does.
    Benchmark(
        "1 build: mapbook locators + package",
        configuration: .init(
            metrics: [.wallClock, .peakMemoryResident, .indexBytes, .rawTextBytes], timeUnits: .milliseconds, warmupIterations: 0,
            maxDuration: .seconds(3600), maxIterations: builds)
    ) { (benchmark: Benchmark, fixture: SearchFixture) throws in
        let built = try fixture.buildPackage()
        benchmark.stopMeasurement()
        benchmark.measurement(.indexBytes, built.indexBytes)
        benchmark.measurement(.rawTextBytes, fixture.rawTextBytes)
        var line = "build mapbook: indexes \(Int(built.indexSeconds * 1000)) ms, package write \(Int(built.writeSeconds * 1000)) ms; "
        line += "index bytes \(built.indexBytes), raw text bytes \(fixture.rawTextBytes) (indexed \(built.textBytes)), package bytes \(built.packageBytes), data.gpkg bytes \(fileSize(fixture.geoPackage))"
        for (name, s, bytes) in built.summaries {
            line += "; \(name): \(s.entries) entries, \(s.groups) groups, \(s.words) words, \(s.numbers) numbers, \(s.textBytes) text bytes, \(bytes) index bytes"
        }
        fixture.report(line)
    } setup: {
        let fixture = SearchFixture.shared
        unlink(fixture.reportPath)
        fixture.report("entries \(fixture.total), queries \(fixture.queryCount), raw text bytes \(fixture.rawTextBytes)")
        try fixture.ensureGeoPackage()
        return fixture
    }

    // (d) The peer's build: the same texts into an FTS5 table, then 'optimize'.
    Benchmark(
        "2 build: FTS5 table",
        configuration: .init(
            metrics: [.wallClock, .peakMemoryResident, .ftsBytes], timeUnits: .milliseconds, warmupIterations: 0,
            maxDuration: .seconds(3600), maxIterations: builds)
    ) { (benchmark: Benchmark, fixture: SearchFixture) throws in
        let built = try fixture.buildFTS()
        benchmark.stopMeasurement()
        benchmark.measurement(.ftsBytes, built.bytes)
        fixture.report("build FTS5: \(Int(built.seconds * 1000)) ms, \(built.bytes) bytes (\(SearchFixture.ftsCreate))")
    } setup: {
        let fixture = SearchFixture.shared
        try fixture.ensureGeoPackage()
        return fixture
    }

    // (b) Opening: the package and its composite locator, read in place.
    Benchmark(
        "3 open: mapbook package + composite locator",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, warmupIterations: 1, maxIterations: 50)
    ) { (_: Benchmark, fixture: SearchFixture) throws in
        blackHole(try fixture.openLocator())
    } setup: {
        let fixture = SearchFixture.shared
        try fixture.ensurePackage()
        return fixture
    }

    // Opening and the first query: it loads the word terms that typo matching walks.
    Benchmark(
        "4 open + first suggest: mapbook",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal], timeUnits: .milliseconds, warmupIterations: 1, maxIterations: 20)
    ) { (_: Benchmark, fixture: SearchFixture) throws in
        let locator = try fixture.openLocator()
        let q = fixture.queries[0]
        blackHole(try locator.suggest(q.text, near: q.near, max: 10))
    } setup: {
        let fixture = SearchFixture.shared
        try fixture.ensurePackage()
        return fixture
    }

    Benchmark(
        "5 open + first query: FTS5",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal], timeUnits: .milliseconds, warmupIterations: 1, maxIterations: 20)
    ) { (_: Benchmark, fixture: SearchFixture) throws in
        let db = try SQLiteDatabase(readOnlyPath: fixture.ftsPath)
        let statement = try db.prepare("SELECT rowid, text FROM t WHERE t MATCH ? ORDER BY rank LIMIT 10")
        try statement.bind([.text(SearchFixture.ftsQuery(fixture.queries[0].text)!)])
        while try statement.step() { blackHole(statement.column(1)) }
    } setup: {
        let fixture = SearchFixture.shared
        try fixture.ensureFTS()
        return fixture
    }

    // (c) The 10,000 queries, one per iteration, with the map centre as preferred location.
    Benchmark("6 suggest: mapbook", configuration: queryConfiguration) { (benchmark: Benchmark, run: QueryRun) throws in
        let q = run.fixture.queries[benchmark.currentIteration]
        let start = now()
        benchmark.startMeasurement()
        let results = try run.locator!.suggest(q.text, near: q.near, max: 10)
        benchmark.stopMeasurement()
        run.record(q, seconds: now() - start, texts: results.map(\.text))
        if benchmark.currentIteration == run.fixture.queries.count - 1 { run.finish("suggest mapbook", benchmark) }
    } setup: {
        let run = QueryRun()
        try run.fixture.ensurePackage()
        run.locator = try run.fixture.openLocator()
        _ = try run.locator!.suggest("Main", max: 10)
        return run
    }

    Benchmark("7 geocode: mapbook", configuration: queryConfiguration) { (benchmark: Benchmark, run: QueryRun) throws in
        let q = run.fixture.queries[benchmark.currentIteration]
        let start = now()
        benchmark.startMeasurement()
        let results = try run.locator!.geocode(q.text, near: q.near, max: 10)
        benchmark.stopMeasurement()
        run.record(q, seconds: now() - start, texts: results.map(\.matchedText))
        if benchmark.currentIteration == run.fixture.queries.count - 1 { run.finish("geocode mapbook", benchmark) }
    } setup: {
        let run = QueryRun()
        try run.fixture.ensurePackage()
        run.locator = try run.fixture.openLocator()
        _ = try run.locator!.geocode("Main", max: 10)
        return run
    }

    // (d) The peer's queries: every token quoted, the last a prefix, AND-ed, best rank first.
    Benchmark("8 prefix query: FTS5", configuration: queryConfiguration) { (benchmark: Benchmark, run: QueryRun) throws in
        let q = run.fixture.queries[benchmark.currentIteration]
        let statement = run.ftsStatement!
        let start = now()
        benchmark.startMeasurement()
        var texts: [String] = []
        if let match = SearchFixture.ftsQuery(q.text) {
            try statement.bind([.text(match)])
            while try statement.step() { texts.append(statement.column(1).text ?? "") }
            statement.reset()
        }
        benchmark.stopMeasurement()
        run.record(q, seconds: now() - start, texts: texts)
        if benchmark.currentIteration == run.fixture.queries.count - 1 { run.finish("query FTS5", benchmark) }
    } setup: {
        let run = QueryRun()
        try run.fixture.ensureFTS()
        run.fts = try SQLiteDatabase(readOnlyPath: run.fixture.ftsPath)
        run.ftsStatement = try run.fts!.prepare("SELECT rowid, text FROM t WHERE t MATCH ? ORDER BY rank LIMIT 10")
        try run.ftsStatement!.bind([.text("\"main\"*")])
        while try run.ftsStatement!.step() {}
        run.ftsStatement!.reset()
        return run
    }
}
