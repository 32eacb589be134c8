// swift-tools-version:6.1
import PackageDescription

// Benchmarks and their data generators, kept out of the main package so `make test` does not
// build them. They use the toolkit's libraries through a path dependency.
let package = Package(
    name: "MapbookBenchmarks",
    dependencies: [
        .package(name: "MapbookToolkit", path: "../.."),
        // Latency percentiles and allocation counts (DESIGN.md section 2). The MallocInterposer
        // trait alone (it replaces the defaults): no jemalloc, and not the RuntimeInterposer
        // trait, whose ordo-one/swift-runtime-interposer is not among this machine's packages.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "make-large-package",
            dependencies: [
                .product(name: "MapbookPackage", package: "MapbookToolkit"),
                .product(name: "MapbookSupport", package: "MapbookToolkit"),
            ]),
        .executableTarget(
            name: "tiles-archive",
            dependencies: [
                .product(name: "MapbookTiles", package: "MapbookToolkit"),
                .product(name: "MapbookPackage", package: "MapbookToolkit"),
                .product(name: "MapbookSupport", package: "MapbookToolkit"),
            ]),
        // Bounding-box and distance queries on 1,000,000 points through FeatureTable.
        .executableTarget(
            name: "feature-queries",
            dependencies: [
                .product(name: "MapbookData", package: "MapbookToolkit"),
                .product(name: "MapbookPackage", package: "MapbookToolkit"),
                .product(name: "MapbookSupport", package: "MapbookToolkit"),
            ]),
        // The viewer: identify on 1,000,000 points, rendering a view warm and its floor.
        .executableTarget(
            name: "viewer-queries",
            dependencies: [
                .product(name: "MapbookViewer", package: "MapbookToolkit"),
                .product(name: "MapbookRender", package: "MapbookToolkit"),
                .product(name: "MapbookTiles", package: "MapbookToolkit"),
                .product(name: "MapbookData", package: "MapbookToolkit"),
                .product(name: "MapbookPackage", package: "MapbookToolkit"),
                .product(name: "MapbookSupport", package: "MapbookToolkit"),
            ]),
        // Street networks: building one from lines, and its queries against Dijkstra's
        // (tools/bench/route-vs-pgrouting.sh runs it beside pgRouting).
        .executableTarget(
            name: "route-queries",
            dependencies: [
                .product(name: "MapbookRouting", package: "MapbookToolkit"),
                .product(name: "MapbookData", package: "MapbookToolkit"),
                .product(name: "MapbookPackage", package: "MapbookToolkit"),
                .product(name: "MapbookSupport", package: "MapbookToolkit"),
            ]),
        // Changesets: 10,000 edits recorded, applied and merged by the portal's copy
        // (tools/bench/changeset-vs-geodiff.sh runs it beside pygeodiff).
        .executableTarget(
            name: "changeset-edits",
            dependencies: [
                .product(name: "MapbookEditing", package: "MapbookToolkit"),
                .product(name: "MapbookData", package: "MapbookToolkit"),
                .product(name: "MapbookPackage", package: "MapbookToolkit"),
                .product(name: "MapbookSupport", package: "MapbookToolkit"),
            ]),
        .executableTarget(
            name: "csv-read",
            dependencies: [
                .product(name: "MapbookData", package: "MapbookToolkit"),
                .product(name: "MapbookPackage", package: "MapbookToolkit"),
                .product(name: "MapbookSupport", package: "MapbookToolkit"),
            ]),
        // Search: a composite locator over 1,000,000 generated entries against SQLite FTS5.
        // The data, package and FTS5 table are made by SearchBenchData; SearchBenchmark
        // measures them (package-benchmark), search-queries replays the queries in a plain
        // process for profilers.
        .target(
            name: "SearchBenchData",
            dependencies: [
                .product(name: "MapbookSearch", package: "MapbookToolkit"),
                .product(name: "MapbookData", package: "MapbookToolkit"),
                .product(name: "MapbookPackage", package: "MapbookToolkit"),
                .product(name: "MapbookSupport", package: "MapbookToolkit"),
            ]),
        .executableTarget(
            name: "SearchBenchmark",
            dependencies: [
                "SearchBenchData",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "MapbookSearch", package: "MapbookToolkit"),
                .product(name: "MapbookPackage", package: "MapbookToolkit"),
                .product(name: "MapbookSupport", package: "MapbookToolkit"),
            ],
            path: "Benchmarks/SearchBenchmark",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
        .executableTarget(
            name: "search-queries",
            dependencies: [
                "SearchBenchData",
                .product(name: "MapbookSearch", package: "MapbookToolkit"),
                .product(name: "MapbookPackage", package: "MapbookToolkit"),
                .product(name: "MapbookSupport", package: "MapbookToolkit"),
            ]),
    ]
)
