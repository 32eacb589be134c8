// swift-tools-version:6.1
import PackageDescription

// The house (DESIGN.md section 1, docs/ARCHITECTURE.md), bottom to top; a target imports only
// targets below it:
//   CArchive, CSQLite, CLibXML2, CProj, CCairo, CZlib, CZstd  system-library shims
//   CMapbookVFS      a read-only SQLite VFS over a byte range of a package
//   CMapbookLazy     PROJ, Cairo, libarchive, libxml2, Zstandard, libqrencode loaded on first use
//   MapbookSupport   the floor: JSON, SQLite, XML, bytes, rectangles, Web Mercator, files, text
//   MapbookPackage   the package format: ZIP, manifest, item info, web maps, Esri containers
//   MapbookData      geometry, CRS (PROJ), importers, the GeoPackage feature store (FeatureTable)
//   MapbookTiles     the MVT codec, the tiler, bundles, .vtpk, PMTiles, MBTiles, styles
//   MapbookSearch    locators: indexes, suggest, geocode, reverse geocode
//   MapbookRender    drawing web-map renderers and styled vector tile backdrops (Cairo, Pango)
//   MapbookInspection  inspect and validate: the format's checks with tiles and search
//   MapbookPackager  project file -> package
//   MapbookLibrary   the device library: modes, packages, records, the credential, viewer state
//   MapbookViewer    maps, layers, legends, bookmarks, views and identify for viewing a package;
//                    the edited locator, the working copy, places and routes as text
//   MapbookPortalAPI the sharing API's shapes and search grammar, shared by client and server
//   MapbookPortal    the sharing API's client (AsyncHTTPClient)
//   MapbookTerminal  the terminal viewer: screens, panels, keys, frames, the loop over a `Terminal`
//   MapbookPortalServer  the portal server (Hummingbird)
//   MapbookWeb       the mapbook in a web browser (`mapbook serve`, Hummingbird)
//   mapbook          the command line
//   MapbookTestSupport and one test target per library, plus MapbookCLITests
// Linux only: the code calls Glibc directly, so no Apple platform is claimed.
let package = Package(
    name: "MapbookToolkit",
    products: [
        .executable(name: "mapbook", targets: ["mapbook"]),
        .library(name: "MapbookSupport", targets: ["MapbookSupport"]),
        .library(name: "MapbookPackage", targets: ["MapbookPackage"]),
        .library(name: "MapbookData", targets: ["MapbookData"]),
        .library(name: "MapbookTiles", targets: ["MapbookTiles"]),
        .library(name: "MapbookRender", targets: ["MapbookRender"]),
        .library(name: "MapbookSearch", targets: ["MapbookSearch"]),
        .library(name: "MapbookRouting", targets: ["MapbookRouting"]),
        .library(name: "MapbookEditing", targets: ["MapbookEditing"]),
        .library(name: "MapbookInspection", targets: ["MapbookInspection"]),
        .library(name: "MapbookPackager", targets: ["MapbookPackager"]),
        .library(name: "MapbookLibrary", targets: ["MapbookLibrary"]),
        .library(name: "MapbookViewer", targets: ["MapbookViewer"]),
        .library(name: "MapbookPortalAPI", targets: ["MapbookPortalAPI"]),
        .library(name: "MapbookPortal", targets: ["MapbookPortal"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.1"),
        // The portal client: streaming downloads with ranges, uploads in parts, TLS with an
        // extra trust root. NIO and NIO SSL are named for their types (ByteBuffer,
        // TLSConfiguration); both are already in the graph through Hummingbird.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // The portal's production store (issue 20): PostgreSQL over its wire protocol.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // `mapbook serve`'s pages: templates that escape every value by default.
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
    ],
    targets: [
        // System-library shims: each a module map and the one header that includes what we call.
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        // PROJ, Cairo, libarchive and libxml2: headers only, no `link` and no pkg-config (which
        // would link them); the calls go to CMapbookLazy, which loads each library on first use,
        // so commands that neither reproject, draw, unpack nor read XML start without them (60
        // of 67 shared libraries; docs/PERFORMANCE.md). libxml2's headers are found through
        // CMapbookLazy's include/libxml, a link to /usr/include/libxml2/libxml.
        .systemLibrary(
            name: "CLibXML2",
            providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(
            name: "CArchive",
            providers: [.apt(["libarchive-dev"])]),
        .systemLibrary(
            name: "CProj",
            providers: [.apt(["libproj-dev"])]),
        .systemLibrary(
            name: "CCairo",
            providers: [.apt(["libcairo2-dev"])]),
        // The PROJ, Cairo, libarchive, libxml2, Zstandard and libqrencode functions the code
        // calls, generated by tools/lazy/generate.py: each opens its library with dlopen on
        // first use.
        .target(name: "CMapbookLazy", linkerSettings: [.linkedLibrary("dl")]),
        // QR codes for the address `mapbook serve` prints, for a phone's camera. Headers only,
        // like Zstandard's below: CMapbookLazy loads the library when a code is drawn.
        .systemLibrary(
            name: "CQREncode",
            providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        // Zstandard: the patches a device builds a package's changed entries from (updates by
        // delta); headers only, loaded by CMapbookLazy when a patch is made or applied.
        .systemLibrary(
            name: "CZstd",
            providers: [.apt(["libzstd-dev"])]),
        // A read-only SQLite VFS over a byte range of a file, written in C because SQLite's
        // VFS is a C struct of callbacks with file objects SQLite allocates for us.
        .target(name: "CMapbookVFS", dependencies: ["CSQLite"]),

        // The floor, each helper written once: JSON, the SQLite wrapper and sessions, XML,
        // little-endian bytes, the rectangle type and Web Mercator, files, text. Public where a
        // public API exposes a type (JSONValue, BoundingBox, SQLiteDatabase), `package` otherwise.
        .target(name: "MapbookSupport", dependencies: ["CSQLite", "CLibXML2", "CMapbookLazy", "CMapbookVFS"]),
        .target(
            name: "MapbookPackage",
            dependencies: [
                "MapbookSupport", "CArchive", "CMapbookLazy", "CZlib", "CZstd",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // Geometry, coordinate systems, importers and the GeoPackage feature store.
        .target(
            name: "MapbookData",
            dependencies: ["MapbookSupport", "MapbookPackage", "CProj", "CMapbookLazy", "CArchive"]),
        // Vector tiles: the MVT codec, the tiler, Compact Cache V2 bundles, .vtpk, PMTiles and
        // MBTiles archives.
        .target(
            name: "MapbookTiles",
            dependencies: ["MapbookSupport", "MapbookData", "MapbookPackage", "CZlib"]),
        // Locators: search indexes, suggest, geocode, reverse geocode.
        .target(
            name: "MapbookSearch",
            dependencies: ["MapbookSupport", "MapbookData", "MapbookPackage"]),
        // The street network in a package: built from a line layer, preprocessed into a
        // contraction hierarchy, routed on read in place, turned into directions.
        .target(
            name: "MapbookRouting",
            dependencies: ["MapbookSupport", "MapbookPackage", "CMapbookLazy"]),
        // Field editing (issue 19): edits checked against a layer's edit schema, changesets,
        // the sync client.
        .target(
            name: "MapbookEditing",
            dependencies: ["MapbookSupport", "MapbookData", "MapbookPackage"]),
        // Drawing with Cairo: web-map renderers (thumbnails, map views, legend swatches) and
        // vector tile backdrops with their MapLibre styles, labels through Pango.
        .target(
            name: "MapbookRender",
            dependencies: ["MapbookSupport", "MapbookData", "MapbookPackage", "MapbookTiles", "CCairo", "CMapbookLazy", "CZlib"]),
        // Inspection and validation of packages, tile packages and data files: the format's
        // checks with the search checks, as `mapbook inspect`/`validate` and the portal run them.
        .target(
            name: "MapbookInspection",
            dependencies: ["MapbookSupport", "MapbookPackage", "MapbookData", "MapbookTiles", "MapbookSearch", "MapbookRouting"]),
        .target(
            name: "MapbookPackager",
            dependencies: [
                "MapbookSupport", "MapbookPackage", "MapbookData", "MapbookTiles", "MapbookRender", "MapbookSearch", "MapbookRouting", "MapbookInspection",
                .product(name: "Yams", package: "Yams"),
            ]),
        // The device library: modes, packages, records, the credential; files only.
        .target(
            name: "MapbookLibrary",
            dependencies: ["MapbookSupport", "MapbookPackage"]),
        // The mapbook viewer: a package's maps with their layers, visibility kept per device,
        // legends, bookmarks, views, identify with pop-ups; what commands and the terminal
        // viewer share: the locator with this device's edits, the working copy, places and
        // routes as text.
        .target(
            name: "MapbookViewer",
            dependencies: ["MapbookSupport", "MapbookPackage", "MapbookData", "MapbookTiles", "MapbookRender", "MapbookSearch", "MapbookRouting", "MapbookEditing", "MapbookLibrary"]),
        // The sharing API's shapes, shared by the portal's client and server: items, errors,
        // the search grammar, form encoding and PKCE.
        .target(
            name: "MapbookPortalAPI",
            dependencies: ["MapbookSupport", .product(name: "Crypto", package: "swift-crypto")]),
        // The client of the sharing API.
        .target(
            name: "MapbookPortal",
            dependencies: [
                "MapbookSupport", "MapbookPackage", "MapbookData", "MapbookEditing", "MapbookLibrary", "MapbookPortalAPI",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        // The portal server (Hummingbird): the sharing API over SQLite metadata and item files.
        // Its item pages draw a stored package's maps with `mapbook serve`'s code (MapbookWeb:
        // the style, tiles and MapLibre), which never imports the portal.
        .target(
            name: "MapbookPortalServer",
            dependencies: [
                "MapbookSupport", "MapbookPortalAPI", "MapbookPackage", "MapbookData", "MapbookTiles", "MapbookSearch", "MapbookRouting", "MapbookInspection", "MapbookEditing",
                "MapbookWeb", "CMapbookLazy",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            // The web pages' templates and files are read at run time from the source tree
            // (PortalPages), as MapbookWeb's are, not copied as resources.
            exclude: ["Resources"]),
        // The mapbook in a web browser (`mapbook serve`): pages from templates, MapLibre maps
        // with base map tiles served in place and feature tiles made on request, and the JSON
        // API the pages use; no portal client, so the portal server can serve its maps too.
        // `Resources/maplibre` is laid by tools/setup from PyPI and never committed.
        .target(
            name: "MapbookWeb",
            dependencies: [
                "MapbookSupport", "MapbookPackage", "MapbookData", "MapbookTiles", "MapbookRender", "MapbookSearch", "MapbookRouting", "MapbookEditing", "MapbookLibrary",
                "MapbookViewer", "MapbookPortalAPI", "CQREncode", "CMapbookLazy",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // Read at run time from the source tree (WebAssets), not copied as resources.
            exclude: ["Resources"]),
        // The terminal viewer (`mapbook view`): screens, panels, keys, the frames it writes and
        // its loop, over a `Terminal` that tests replace with a model of one.
        .target(
            name: "MapbookTerminal",
            dependencies: [
                "MapbookSupport", "MapbookPackage", "MapbookData", "MapbookRender", "MapbookSearch", "MapbookRouting", "MapbookEditing", "MapbookLibrary",
                "MapbookViewer", "MapbookPortalAPI", "MapbookPortal",
            ]),
        .executableTarget(
            name: "mapbook",
            dependencies: [
                "MapbookSupport", "MapbookPackage", "MapbookData", "MapbookTiles", "MapbookSearch", "MapbookRouting", "MapbookEditing", "MapbookRender", "MapbookInspection", "MapbookPackager", "MapbookLibrary", "MapbookViewer", "MapbookPortalAPI", "MapbookPortal",
                "MapbookPortalServer", "MapbookTerminal", "MapbookWeb",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // The Swift driver links executables with --export-dynamic: 56,000 symbols that
            // nothing looks up, which cost every start 1.5 ms (the runtime's dladdr walks them
            // all). Tests run the debug binary as users do, so only release builds drop them.
            // Release builds are also position-dependent unless MAPBOOK_PIE=1 at build time: as
            // PIE, the loader applied 161,503 relocations to 2 MB of metadata on every start,
            // 1.3 ms of the 3.7 ms `--version` took (issue 36). Shared libraries, heap and stack
            // keep their random addresses, the executable's own code does not: a portal serving
            // the internet without a proxy in front may want them (README, docs/PORTAL.md).
            // Release builds link the Swift runtime statically (--static-swift-stdlib, as the
            // Makefile does); against the shared one, as debug builds link, the loader warns of
            // a fixed executable's direct references to the runtime's protected functions.
            linkerSettings: [
                .unsafeFlags(
                    ["-Xlinker", "--no-export-dynamic"] + (Context.environment["MAPBOOK_PIE"] == "1" ? [] : ["-Xclang-linker", "-no-pie"]),
                    .when(configuration: .release))
            ]),

        .target(
            name: "MapbookTestSupport",
            dependencies: ["MapbookSupport", "MapbookPackage", "CZlib"],
            path: "Tests/MapbookTestSupport"),
        .testTarget(
            name: "MapbookSupportTests",
            dependencies: ["MapbookSupport", "MapbookTestSupport"]),
        .testTarget(
            name: "MapbookPackageTests",
            dependencies: ["MapbookSupport", "MapbookPackage", "MapbookInspection", "MapbookTestSupport"]),
        .testTarget(
            name: "MapbookDataTests",
            dependencies: ["MapbookSupport", "MapbookData", "MapbookTestSupport"]),
        .testTarget(
            name: "MapbookTilesTests",
            dependencies: ["MapbookSupport", "MapbookTiles", "MapbookData", "MapbookPackage", "MapbookInspection", "MapbookTestSupport"]),
        .testTarget(
            name: "MapbookInspectionTests",
            dependencies: ["MapbookSupport", "MapbookInspection", "MapbookPackage", "MapbookTestSupport"]),
        .testTarget(
            name: "MapbookSearchTests",
            dependencies: ["MapbookSupport", "MapbookSearch", "MapbookData", "MapbookPackage", "MapbookTestSupport"]),
        .testTarget(
            name: "MapbookEditingTests",
            dependencies: ["MapbookSupport", "MapbookEditing", "MapbookData", "MapbookPackage", "MapbookPackager", "MapbookTestSupport"]),
        .testTarget(
            name: "MapbookRoutingTests",
            dependencies: ["MapbookRouting", "MapbookData", "MapbookTestSupport"]),
        .testTarget(
            name: "MapbookRenderTests",
            // MapbookTiles: drawing and the backdrop's compiled styles must class features alike.
            dependencies: ["MapbookSupport", "MapbookRender", "MapbookTiles", "MapbookData", "MapbookPackage", "MapbookTestSupport", "CCairo", "CMapbookLazy"]),
        .testTarget(
            name: "MapbookPackagerTests",
            dependencies: [
                "MapbookSupport", "MapbookPackager", "MapbookPackage", "MapbookData", "MapbookTiles", "MapbookSearch", "MapbookRouting", "MapbookInspection", "MapbookTestSupport",
            ]),
        .testTarget(
            name: "MapbookLibraryTests",
            dependencies: ["MapbookLibrary", "MapbookPackage", "MapbookSupport", "MapbookTestSupport"]),
        .testTarget(
            name: "MapbookPortalAPITests",
            dependencies: ["MapbookPortalAPI", "MapbookTestSupport"]),
        .testTarget(
            name: "MapbookPortalTests",
            dependencies: ["MapbookSupport", "MapbookPortal", "MapbookLibrary", "MapbookPortalAPI", "MapbookPackage", "MapbookTestSupport"]),
        .testTarget(
            name: "MapbookPortalServerTests",
            dependencies: [
                "MapbookSupport", "MapbookPortalServer", "MapbookPortalAPI", "MapbookPackage", "MapbookData", "MapbookEditing", "MapbookPackager", "MapbookTiles", "MapbookTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Mustache", package: "swift-mustache"),
            ]),
        // End-to-end tests run the built `mapbook` binary; depending on the executable makes
        // `swift test` build it first.
        .testTarget(
            name: "MapbookViewerTests",
            dependencies: ["MapbookSupport", "MapbookViewer", "MapbookLibrary", "MapbookPackager", "MapbookRender", "MapbookTiles", "MapbookData", "MapbookPackage", "MapbookTestSupport"]),
        .testTarget(
            name: "MapbookTerminalTests",
            dependencies: ["MapbookTerminal", "MapbookViewer", "MapbookLibrary", "MapbookPackager", "MapbookRender", "MapbookPackage", "MapbookEditing", "MapbookSupport", "MapbookTestSupport"]),
        .testTarget(
            name: "MapbookCLITests",
            dependencies: ["mapbook", "MapbookSupport", "MapbookPackage", "MapbookData", "MapbookTiles", "MapbookSearch", "MapbookInspection", "MapbookTestSupport"]),
    ]
)
