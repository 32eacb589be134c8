// The files the search benchmark measures: data.gpkg (written once and kept), the package
// with its composite locator, and the FTS5 peer, all under one work folder.

#if canImport(Glibc)
import Glibc
#endif
import MapbookData
import MapbookPackage
import MapbookSearch
import MapbookSupport

/// Monotonic seconds.
public func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

public func fileSize(_ path: String) -> Int {
    var st = stat()
    return stat(path, &st) == 0 ? Int(st.st_size) : 0
}

public func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}

public struct BenchError: Error, CustomStringConvertible {
    public var description: String
}

/// Everything generated, and where the files go. One per benchmark process.
public final class SearchFixture: @unchecked Sendable {
    public static let shared = SearchFixture()

    public let directory: String
    public let total: Int
    public let queryCount: Int
    public let layers: [GeneratedLayer]
    public let queries: [GeneratedQuery]
    /// UTF-8 bytes of every indexed value.
    public let rawTextBytes: Int

    public var geoPackage: String { directory + "/data.gpkg" }
    public var packagePath: String { directory + "/Search.mmpk" }
    public var ftsPath: String { directory + "/fts5.sqlite" }
    public var reportPath: String { directory + "/report.txt" }

    private init() {
        // SEARCH_BENCH_ENTRIES and SEARCH_BENCH_QUERIES make a smaller run for trying things.
        total = environment("SEARCH_BENCH_ENTRIES").flatMap { Int($0) } ?? 1_000_000
        queryCount = environment("SEARCH_BENCH_QUERIES").flatMap { Int($0) } ?? 10_000
        directory = environment("SEARCH_BENCH_DIR") ?? "/tmp/mapbook-search-bench-\(total)"
        mkdir(directory, 0o755)
        let generated = SearchData.layers(total: total)
        layers = generated.layers
        queries = SearchData.queries(layers, towns: generated.towns, count: queryCount)
        rawTextBytes = layers.reduce(0) { $0 + $1.entries.reduce(0) { $0 + $1.text.utf8.count } }
    }

    /// Appends a line to the run's report (the benchmark tool silences the processes' output).
    public func report(_ line: String) {
        guard let f = fopen(reportPath, "a") else { return }
        fputs(line + "\n", f)
        fclose(f)
    }

    // MARK: - data.gpkg

    public static func webMercator(_ lon: Double, _ lat: Double) -> Position {
        let r = 6_378_137.0
        return Position(x: lon * .pi / 180 * r, y: r * log(tan(.pi / 4 + lat * .pi / 360)))
    }

    /// Writes data.gpkg unless this generator's version of it is there.
    public func ensureGeoPackage() throws {
        let stamp = directory + "/data.gpkg.stamp"
        let expected = "v\(SearchData.version) \(total)"
        if fileSize(geoPackage) > 0, let f = fopen(stamp, "r") {
            var buffer = [CChar](repeating: 0, count: 64)
            let line = fgets(&buffer, 64, f).map { _ in String(cString: buffer) } ?? ""
            fclose(f)
            if line == expected { return }
        }
        unlink(geoPackage)
        let writer = try GeoPackageWriter(path: geoPackage, crs: .webMercator, timestamp: 1_700_000_000)
        let kinds = ["HYD": "Hydrant", "VLV": "Valve", "MH": "Manhole", "SWR": "Sewer main", "CB": "Catch basin", "WM": "Water meter",
                     "FH": "Flushing hydrant", "PS": "Pump station", "TRF": "Transformer", "SGN": "Sign", "LT": "Street light", "PL": "Pole"]
        var rng = SeededGenerator(seed: SearchData.seed ^ 0xA77)
        for layer in layers {
            var fields = [Field(name: layer.field, type: .text)]
            switch layer.table {
            case "assets": fields.append(Field(name: "kind", type: .text))
            case "addresses": fields.append(Field(name: "postcode", type: .text))
            default:
                fields.append(Field(name: "category", type: .text))
                fields.append(Field(name: "population", type: .integer))
            }
            let schema = LayerSchema(name: layer.table, fields: fields, geometryType: .point, crs: .webMercator)
            try writer.beginLayer(table: layer.table, schema: schema, identifier: layer.participant, description: "generated")
            for e in layer.entries {
                var values: [FieldValue] = [.text(e.text)]
                switch layer.table {
                case "assets": values.append(.text(kinds[String(e.text.prefix { $0 != "-" })] ?? "Asset"))
                case "addresses": values.append(.text("97\(100 + Int((e.latitude - 42) * 100) % 900)"))
                default:
                    values.append(.text(e.text.contains(" ") && e.text.first!.isUppercase && e.text.split(separator: " ").last!.first!.isLowercase ? "species" : "place"))
                    values.append(.integer(Int64(pow(10, 1 + 5 * rng.unit()))))
                }
                try writer.add(geometry: Geometry(.point(Self.webMercator(e.longitude, e.latitude))), values: values)
            }
            try writer.finishLayer()
        }
        try writer.close()
        if let f = fopen(stamp, "w") {
            fputs(expected, f)
            fclose(f)
        }
    }

    // MARK: - The package

    public var specs: [LocatorSpec] {
        layers.map { layer in
            switch layer.table {
            case "assets": LocatorSpec(name: layer.participant, layer: layer.table, field: layer.field, outputFields: ["kind"])
            case "addresses": LocatorSpec(name: layer.participant, layer: layer.table, field: layer.field, outputFields: ["postcode"], isAddress: true)
            default: LocatorSpec(name: layer.participant, layer: layer.table, field: layer.field, rankField: "population", outputFields: ["category"])
            }
        }
    }

    public struct PackageBuild {
        public var indexSeconds: Double
        public var writeSeconds: Double
        public var indexBytes: Int
        public var textBytes: Int
        public var packageBytes: Int
        public var summaries: [(String, LocatorIndexSummary, Int)]
    }

    /// Builds the three participants' indexes and writes the package, as the packager does.
    @discardableResult
    public func buildPackage() throws -> PackageBuild {
        let start = now()
        let work = directory + "/locators"
        mkdir(work, 0o755)
        var files: [PackageContents.File] = [PackageContents.File(path: "data.gpkg", source: .file(path: geoPackage))]
        var summaries: [(String, LocatorIndexSummary, Int)] = []
        var participants: [CompositeDefinition.Participant] = []
        for (i, spec) in specs.enumerated() {
            mkdir(work + "/" + spec.name, 0o755)
            let indexPath = work + "/\(spec.name)/index.sqlite"
            let built = try LocatorBuilder.build(spec, geoPackage: geoPackage, indexPath: indexPath)
            files.append(PackageContents.File(path: "locators/\(spec.name)/locator.json", source: .bytes(JSONWriter.bytes(built.definition.jsonValue))))
            files.append(PackageContents.File(path: "locators/\(spec.name)/index.sqlite", source: .file(path: indexPath)))
            summaries.append((spec.name, built.summary, fileSize(indexPath)))
            participants.append(.init(name: spec.name, path: spec.name, order: i + 1))
        }
        let composite = CompositeDefinition(name: "Search", participants: participants)
        files.append(PackageContents.File(path: "locators/Search.loc.json", source: .bytes(JSONWriter.bytes(composite.jsonValue))))
        let indexed = now()

        var manifest = PackageManifest()
        manifest.name = "Search"
        manifest.title = "Search benchmark"
        manifest.type = PackageManifest.mobileMapPackageType
        manifest.spatialReference = "WGS_1984_Web_Mercator_Auxiliary_Sphere"
        manifest.locators = ["p20/locators/Search.loc.json"]
        var itemInfo = ItemInfo()
        itemInfo.name = "Search"
        itemInfo.title = "Search benchmark"
        var packageInfo = PackageInfo()
        packageInfo.name = "Search"
        let contents = PackageContents(
            name: "Search", manifest: manifest, itemInfo: itemInfo, packageInfo: packageInfo, thumbnail: nil, maps: [],
            files: files, timestamp: 1_700_000_000, generator: "mapbook search benchmark")
        let written = try PackageWriter.write(contents, to: packagePath)
        let done = now()
        return PackageBuild(
            indexSeconds: indexed - start, writeSeconds: done - indexed, indexBytes: summaries.reduce(0) { $0 + $1.2 },
            textBytes: summaries.reduce(0) { $0 + $1.1.textBytes }, packageBytes: Int(written.fileSize), summaries: summaries)
    }

    public func ensurePackage() throws {
        try ensureGeoPackage()
        if fileSize(packagePath) == 0 { try buildPackage() }
    }

    public func openLocator() throws -> CompositeLocator {
        guard let locator = try CompositeLocator.open(try MobileMapPackage(path: packagePath)) else {
            throw BenchError(description: "\(packagePath) has no locator")
        }
        return locator
    }

    // MARK: - The FTS5 peer

    /// The FTS5 table's definition: the same folding of case and diacritics that unicode61
    /// does, and prefix indexes for 2 and 3 characters.
    public static let ftsCreate = "CREATE VIRTUAL TABLE t USING fts5(text, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3')"

    /// Rowid = a global entry id: the participant's offset plus the feature's fid.
    public var participantOffsets: [Int64] {
        var out: [Int64] = []
        var offset: Int64 = 0
        for layer in layers {
            out.append(offset)
            offset += Int64(layer.entries.count)
        }
        return out
    }

    /// Builds fts5.sqlite from data.gpkg's search fields, then merges its segments
    /// ('optimize'), as a read-only index would be shipped.
    @discardableResult
    public func buildFTS() throws -> (seconds: Double, bytes: Int) {
        let start = now()
        let temporary = ftsPath + ".tmp"
        unlink(temporary)
        let db = try SQLiteDatabase(writablePath: temporary)
        try db.execute("PRAGMA page_size = 4096; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
        try db.execute(Self.ftsCreate)
        try db.execute("ATTACH DATABASE '\(geoPackage)' AS data")
        try db.execute("BEGIN")
        for (layer, offset) in zip(layers, participantOffsets) {
            try db.execute("INSERT INTO t (rowid, text) SELECT fid + \(offset), \(SQLiteDatabase.quote(layer.field)) FROM data.\(SQLiteDatabase.quote(layer.table)) ORDER BY fid")
        }
        try db.execute("COMMIT")
        try db.execute("DETACH DATABASE data")
        try db.execute("INSERT INTO t (t) VALUES ('optimize')")
        try db.close()
        guard rename(temporary, ftsPath) == 0 else { throw BenchError(description: "cannot rename \(temporary)") }
        return (now() - start, fileSize(ftsPath))
    }

    public func ensureFTS() throws {
        try ensureGeoPackage()
        if fileSize(ftsPath) == 0 { try buildFTS() }
    }

    /// The query as FTS5 sees typing: each token a quoted string, the last a prefix, all
    /// required.
    public static func ftsQuery(_ text: String) -> String? {
        var tokens: [String] = []
        var current = ""
        for c in text {
            if c.isLetter || c.isNumber {
                current.append(c)
            } else if !current.isEmpty {
                tokens.append(current)
                current = ""
            }
        }
        if !current.isEmpty { tokens.append(current) }
        guard !tokens.isEmpty else { return nil }
        return tokens.enumerated().map { i, t in
            "\"" + t.replacingOccurrences(of: "\"", with: "\"\"") + "\"" + (i == tokens.count - 1 ? "*" : "")
        }.joined(separator: " AND ")
    }
}

extension String {
    public func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

/// Counts of results found first and among the first five, overall and by kind of query.
public struct HitCounter {
    public init() {}

    public var total = 0
    public var at1 = 0
    public var at5 = 0
    public var byKind: [GeneratedQuery.Kind: (total: Int, at1: Int, at5: Int)] = [:]

    public mutating func add(_ query: GeneratedQuery, texts: [String]) {
        let want = SearchText.normalized(query.expected)
        let position = texts.prefix(5).firstIndex { SearchText.normalized($0) == want }
        total += 1
        var k = byKind[query.kind] ?? (0, 0, 0)
        k.total += 1
        if position == 0 {
            at1 += 1
            k.at1 += 1
        }
        if position != nil {
            at5 += 1
            k.at5 += 1
        }
        byKind[query.kind] = k
    }

    public static func percent(_ n: Int, _ of: Int) -> String {
        of == 0 ? "-" : String(Double((n * 1000 + of / 2) / of) / 10)
    }

    public var summary: String {
        var parts = ["hit@1 \(Self.percent(at1, total))%", "hit@5 \(Self.percent(at5, total))%"]
        for kind in GeneratedQuery.Kind.allCases {
            guard let k = byKind[kind] else { continue }
            parts.append("\(kind.rawValue) (\(k.total)): \(Self.percent(k.at1, k.total))% / \(Self.percent(k.at5, k.total))%")
        }
        return parts.joined(separator: "; ")
    }
}
