// swift-tools-version:6.1
import PackageDescription

// Benchmarks and their data generators, kept out of the main package so `make test` does not
// build them. They use the toolkit's libraries through a path dependency.
let package = Package(
    name: "MapbookBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "MapbookToolkit", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "make-large-package",
            dependencies: [.product(name: "MapbookPackage", package: "MapbookToolkit")]),
        .executableTarget(
            name: "tiles-archive",
            dependencies: [
                .product(name: "MapbookTiles", package: "MapbookToolkit"),
                .product(name: "MapbookPackage", package: "MapbookToolkit"),
            ]),
        .executableTarget(
            name: "csv-read",
            dependencies: [.product(name: "MapbookData", package: "MapbookToolkit")]),
    ]
)
