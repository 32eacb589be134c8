// swift-tools-version:6.1
import PackageDescription

// libFuzzer drivers, one per reader of strangers' input (issue 17), kept out of the main
// package so `make test` does not build them. They use the toolkit's libraries through a path
// dependency and are built by tools/fuzz/run.sh, with `-sanitize=fuzzer,address`: each
// driver's `main` hands its inputs to libFuzzer (`FuzzInput.run`), so a build without the
// fuzzer does not link.
let toolkit = "MapbookToolkit"

func driver(_ name: String, _ products: [String]) -> Target {
    .executableTarget(
        name: "fuzz-\(name)",
        dependencies: ["FuzzSupport"] + products.map { .product(name: $0, package: toolkit) },
        path: "Sources/fuzz-\(name)")
}

let package = Package(
    name: "MapbookFuzz",
    dependencies: [.package(name: toolkit, path: "../..")],
    targets: [
        .target(name: "FuzzSupport"),
        driver("package", ["MapbookInspection", "MapbookPackage"]),
        driver("mvt", ["MapbookTiles", "MapbookPackage"]),
        driver("geojson", ["MapbookData"]),
        driver("shapefile", ["MapbookData"]),
        driver("csv", ["MapbookData"]),
        driver("project", ["MapbookPackager"]),
        driver("portal-query", ["MapbookPortalAPI"]),
        driver("locator", ["MapbookSearch", "MapbookPackage"]),
        driver("style", ["MapbookTiles", "MapbookRender", "MapbookPackage", "MapbookSupport"]),
        driver("webmap", ["MapbookPackage", "MapbookSupport"]),
    ]
)
