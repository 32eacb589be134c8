#if canImport(Glibc)
import Glibc
#endif
import MapbookInspection
import MapbookPackage
import MapbookSupport
import MapbookRender
import MapbookTiles

/// What `Packager.build` wrote.
public struct PackagerSummary: Sendable {
    public var path: String
    public var maps: [(name: String, layers: Int, bookmarks: Int)]
    public var entries: [(name: String, size: Int64)]
    public var fileSize: Int64
    public var extent: BoundingBox
    /// Per imported source: features read, kept, dropped, clipped, and the warnings.
    public var layers: [Packager.ImportedLayer]
    /// Warnings about the maps (renderers that could not colour every value, ...).
    public var warnings: [String]
    /// Features per class of each renderer made from a short form (`renderer: { classBreaks: ... }`).
    public var classes: [Packager.RendererReport]
    /// What the tiler did per zoom, when the backdrop was built from layers.
    public var backdrop: TilerReport?
    /// The locators built, when sources have `search`.
    public var locator: Packager.LocatorReport?
    /// The street network built, when the project has `network`.
    public var network: Packager.NetworkReport?
}

/// Turns a project into a package: checks every source, table, field and path it names,
/// builds the maps, item descriptions and manifest, and writes the archive atomically.
public enum Packager {
    public static let generator = "mapbook \(MapbookInfo.version)"

    /// Builds the package described by `project` at `output`.
    ///
    /// `timestamp` (Unix seconds) fixes every date in the package, for byte-identical rebuilds;
    /// nil means now. `progress` hears (source, features read) during long imports, and status lines (a negative count) while the backdrop is tiled. The
    /// feature store, the backdrop and the locator indexes are built in hidden files beside
    /// `output`, removed whatever happens; those a killed build left there are removed first.
    /// With `signingKeys`, the package is signed by each before it is checked and renamed.
    public static func build(
        _ project: Project, output: String, timestamp: Int64? = nil, signingKeys: [SigningKey] = [], progress: ((String, Int) -> Void)? = nil
    ) throws -> PackagerSummary {
        try checkOutputFolder(output, project)
        removeStaleWorkFiles(beside: output)
        let folder = try workFolder(beside: output, project: project)
        defer { WorkFiles.remove(folder) }
        let (work, tiles, indexes) = workFiles(project, in: folder)
        let plan = try plan(project, output: output, timestamp: timestamp, dataFile: work, backdropFile: tiles, locatorFiles: indexes, progress: progress)
        // What `create` writes, `validate` accepts: the archive is checked under its temporary
        // name and a package that fails is never renamed into place.
        progress?("writing the package", -1)
        let written = try PackageWriter.write(plan.contents, to: output, signingKeys: signingKeys) { temporary in
            progress?("checking the package as validate does", -1)
            let report = PackageValidator.validate(path: temporary)
            let errors = report.diagnostics.filter { $0.severity == .error }
            guard errors.isEmpty else {
                let listed = errors.prefix(5).map(\.description).joined(separator: "; ")
                throw ProjectError(
                    kind: .invalidPackage, file: project.file, key: "", line: nil,
                    message: "the package built fails its own validation, so \(output) was not written (a defect of mapbook; please report it with the project): \(listed)")
            }
        }
        return PackagerSummary(
            path: output, maps: plan.mapCounts, entries: written.entries, fileSize: written.fileSize, extent: plan.extent,
            layers: plan.layers, warnings: plan.warnings, classes: plan.classes, backdrop: plan.backdrop, locator: plan.locator, network: plan.network)
    }

    /// Everything `build` would do, without writing the package: the sources are imported into
    /// a scratch GeoPackage in the system's temporary folder (removed before returning), so the
    /// counts, warnings and sizes are those of a real build.
    public static func dryRun(_ project: Project, output: String, timestamp: Int64? = nil, progress: ((String, Int) -> Void)? = nil) throws -> Plan {
        let temporary = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        let folder = try workFolder(beside: temporary + "/x", project: project)
        defer { WorkFiles.remove(folder) }
        let (work, tiles, indexes) = workFiles(project, in: folder)
        return try plan(project, output: output, timestamp: timestamp, dataFile: work, backdropFile: tiles, locatorFiles: indexes, progress: progress)
    }

    /// Removes the work folders (`workFolder`) of builds whose process is gone (killed, or the
    /// machine stopped) from the folder of `path`, and the loose work files older versions
    /// made; a running build's are left alone.
    static func removeStaleWorkFiles(beside path: String) {
        let folder = FileSystem.parent(of: path)
        for name in FileSystem.names(in: folder) where name.hasPrefix(".mapbook-") {
            // .mapbook-<name>-<pid>-<nanoseconds>[.<ext>]
            let stem = name.split(separator: ".", omittingEmptySubsequences: true).first ?? ""
            let parts = stem.split(separator: "-")
            guard parts.count >= 4, let pid = pid_t(parts[parts.count - 2]), pid > 0, Int(parts[parts.count - 1]) != nil else { continue }
            if kill(pid, 0) == -1 && errno == ESRCH { FileSystem.removeTree(folder + "/" + name) }
        }
    }

    /// Says a folder of `output` that is not there, or not writable, before any work is done
    /// (and before the build's work folder is made in it).
    static func checkOutputFolder(_ output: String, _ project: Project) throws {
        let folder = FileSystem.parent(of: output)
        guard FileSystem.kind(folder) == .directory else {
            throw ProjectError(kind: .file(.io(errno: ENOENT)), file: project.file, key: "", line: nil, message: "cannot write '\(output)': the folder '\(folder)' does not exist")
        }
        guard access(folder, W_OK) == 0 else {
            throw ProjectError(kind: .file(.io(errno: errno)), file: project.file, key: "", line: nil, message: "cannot write '\(output)': the folder '\(folder)' is not writable (\(FileSystem.errorMessage()))")
        }
    }

    /// A hidden, unique folder beside `path` (mode 0700) that holds a build's work files,
    /// removed as a whole when the build ends or is interrupted (`WorkFiles`): once it is
    /// gone, nothing the build still writes (a GeoPackage's next journal) can appear again.
    static func workFolder(beside path: String, project: Project) throws -> String {
        let parent = FileSystem.parent(of: path)
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let folder = "\(parent)/.mapbook-build-\(getpid())-\(ts.tv_nsec)"
        // Registered first: an interruption between the two removes it all the same.
        WorkFiles.register(folder)
        guard mkdir(folder, 0o700) == 0 else {
            let code = errno
            WorkFiles.unregister(folder)
            throw ProjectError(
                kind: .file(.io(errno: code)), file: project.file, key: "", line: nil,
                message: "cannot make the build's work folder \(folder): \(FileSystem.errorMessage(code)); the output's folder must be writable")
        }
        return folder
    }

    /// The feature store, the backdrop and the locator indexes a build writes in `folder`.
    static func workFiles(_ project: Project, in folder: String) -> (data: String, backdrop: String, locators: [String]) {
        (folder + "/data.gpkg", folder + "/tiles.vtpk", project.searches.indices.map { folder + "/locator-\($0).sqlite" })
    }


    /// Everything `build` would write, without writing it.
    public struct Plan: Sendable {
        public var contents: PackageContents
        public var extent: BoundingBox
        public var mapCounts: [(name: String, layers: Int, bookmarks: Int)]
        public var layers: [ImportedLayer]
        /// The size the package will have, from the files it will hold.
        public var estimatedSize: Int64
        public var warnings: [String]
        /// Features per class of each renderer made from a short form.
        public var classes: [RendererReport] = []
        /// What the tiler did per zoom, when the backdrop was built from layers.
        public var backdrop: TilerReport?
        /// The locators built, when sources have `search`.
        public var locator: LocatorReport?
        /// The street network built, when the project has `network`.
        public var network: NetworkReport?
    }

    /// Collects warnings while a plan is made. Used from one task; a class so the value-type
    /// context can add to it from non-mutating methods.
    final class Warnings: @unchecked Sendable {
        private(set) var list: [String] = []
        /// Features per class of each renderer the project's short forms made.
        private(set) var classes: [RendererReport] = []
        func add(_ warning: String) { list.append(warning) }
        func addClasses(_ report: RendererReport) { classes.append(report) }
    }

    /// The latest time a package may carry: 9999-12-31T23:59:59Z.
    public static let latestTimestamp: Int64 = 253_402_300_799

    static func plan(
        _ project: Project, output: String, timestamp: Int64?, dataFile: String, backdropFile: String, locatorFiles: [String],
        progress: ((String, Int) -> Void)?
    ) throws -> Plan {
        let now = timestamp ?? currentTime()
        guard (0...latestTimestamp).contains(now) else {
            throw ProjectError(kind: .invalidValue, file: project.file, key: "", line: nil, message: "the package time \(now) is not between 1970 and 9999 (Unix seconds)")
        }
        var context = Context(project: project)
        try checkOutputFolder(output, project)
        // The output must not overwrite an input.
        let outputKey = canonicalPath(output) ?? output
        let inputs = project.sources.map { context.resolve($0.path) } + (project.backdrop?.path.map { [context.resolve($0)] } ?? []) + project.basemaps.map { context.resolve($0.path) }
        for file in inputs where canonicalPath(file) == outputKey {
            throw ProjectError(kind: .outputIsInput, file: project.file, key: "", line: nil, message: "the output '\(output)' is one of the project's inputs; choose another output path")
        }

        context.imported = try importSources(project, context: context, dataFile: dataFile, timestamp: now, progress: progress)
        let guid = project.guid ?? derivedGUID(project.name + "\n" + project.title)
        context.editable = try context.installEditSchemas(dataFile: dataFile, seed: guid, timestamp: now)
        let sources = try context.resolveSources()
        let quality = try context.checkLocators(sources: sources)
        var backdrop = try context.resolveBackdrop()
        let basemaps = try context.resolveBasemaps()
        var tiling: TilerReport?
        if let spec = project.backdrop, spec.path == nil {
            let built = try context.buildBackdrop(spec, sources: sources, file: backdropFile, timestamp: now, progress: progress)
            backdrop = built.0
            tiling = built.1
        }
        let extent = try context.packageExtent(sources: Array(sources.values), backdrop: backdrop)
        // A backdrop given as a file may cover another place than the data (a country's basemap
        // for a city elsewhere): outside it the maps draw on nothing.
        if project.backdrop?.path != nil, let backdrop, let covered = backdrop.extent, !covered.contains(extent) {
            context.warnings.add("backdrop: '\(backdrop.title)' covers \(covered), not all of the package's extent \(extent) (WGS84); outside it the maps have no backdrop")
        }
        var thumbnail = try project.thumbnail.map { try context.readImage($0, key: "thumbnail") }
        let spatialReference = project.crs == 4326 ? SpatialReference.wgs84 : SpatialReference.webMercator

        var maps: [(fileName: String, map: MobileMap)] = []
        var counts: [(String, Int, Int)] = []
        for spec in project.maps {
            let map = try context.buildMap(
                spec, sources: sources, backdrop: backdrop, basemaps: basemaps, packageExtent: extent, spatialReference: spatialReference,
                packageGUID: guid, packageThumbnail: thumbnail)
            maps.append((spec.name, map))
            counts.append((spec.name, spec.layers.count, spec.bookmarks.count))
        }
        // Thumbnails drawn from the data, where the project gives none.
        let tables = context.imported?.layers.mapValues(\.table) ?? [:]
        // The backdrop's tiles and style, read from the file just built (or given).
        let backdropRenderer = try backdrop.map { try BackdropRenderer.open(try TilePackage(archive: try ZipArchive(path: $0.file))) }
        // Without a backdrop the first base map is shown: a raster one is drawn under the layers.
        let rasterRenderer = try basemaps.first.flatMap { first in
            backdrop == nil && first.kind == .compactTilePackage ? try RasterBaseMapRenderer(package: try TilePackage(archive: try ZipArchive(path: first.file))) : nil
        }
        for (i, spec) in project.maps.enumerated() where spec.thumbnail == nil {
            progress?("drawing the thumbnail of \(spec.name)", -1)
            let png = try drawThumbnail(
                maps[i].map, dataFile: dataFile, tables: tables, extent: spec.extent ?? context.mapExtent(spec, sources: sources) ?? extent, spatialReference: spatialReference,
                backdrop: spec.showBackdrop ? backdropRenderer : nil, raster: spec.showBackdrop ? rasterRenderer : nil)
            if let png { maps[i].map.item.thumbnail = DataURI.encode(png, mimeType: "image/png") }
            if thumbnail == nil { thumbnail = png }
        }
        if let imported = context.imported {
            try writeLayerDefaults(dataFile: dataFile, imported: imported, maps: maps, timestamp: now)
        }
        var locator = try context.buildLocators(sources: sources, dataFile: dataFile, indexFiles: locatorFiles, quality: quality)
        var network = try context.buildNetwork(dataFile: dataFile, sources: sources, progress: progress)

        var manifest = PackageManifest()
        manifest.name = project.name
        manifest.guid = guid
        manifest.version = project.version ?? "1.0"
        manifest.created = now * 1000
        manifest.modified = now * 1000
        manifest.catalogPath = ""
        manifest.snippet = project.summary ?? ""
        manifest.description = project.description ?? ""
        manifest.summary = project.summary ?? ""
        manifest.title = project.title
        manifest.tags = project.tags
        manifest.type = PackageManifest.mobileMapPackageType
        manifest.typeKeywords = ["Mobile Map Package", "mmpk", "Mapbook"]
        manifest.thumbnail = thumbnail.map { DataURI.encode($0, mimeType: ImageKind($0)!.mimeType) }
        manifest.extent = extent
        manifest.spatialReference = project.crs == 4326 ? "GCS_WGS_1984" : "WGS_1984_Web_Mercator_Auxiliary_Sphere"
        manifest.minScale = 0
        manifest.maxScale = 0
        manifest.accessInformation = project.credits ?? ""
        manifest.licenseInfo = project.useLimitations ?? ""
        if let e = project.expiration {
            manifest.expiration = Expiration(dateTime: e.date * 1000, kind: e.kind, message: e.message)
        }

        var itemInfo = ItemInfo()
        itemInfo.name = project.name
        itemInfo.guid = guid
        itemInfo.version = manifest.version ?? "1.0"
        itemInfo.created = now
        itemInfo.modified = now
        itemInfo.snippet = project.summary ?? ""
        itemInfo.description = project.description ?? ""
        itemInfo.summary = project.summary ?? ""
        itemInfo.title = project.title
        itemInfo.tags = project.tags
        itemInfo.typeKeywords = manifest.typeKeywords ?? []
        itemInfo.extent = extent
        itemInfo.spatialReference = manifest.spatialReference ?? ""
        itemInfo.minScale = 0
        itemInfo.maxScale = 0
        itemInfo.accessInformation = project.credits ?? ""
        itemInfo.licenseInfo = project.useLimitations ?? ""

        var packageInfo = PackageInfo()
        packageInfo.id = guid
        packageInfo.name = project.name
        packageInfo.version = MapbookInfo.version
        packageInfo.created = ISODate.format(seconds: now)

        var contents = PackageContents(
            name: project.name, manifest: manifest, itemInfo: itemInfo, packageInfo: packageInfo,
            thumbnail: thumbnail, maps: maps, files: context.files, timestamp: now, generator: generator)
        if let entry = contents.thumbnailEntry {
            contents.itemInfo.thumbnail = String(entry.dropFirst("esriinfo/".count))
        }
        // The manifest lists the composite (DESIGN.md 3.1), by its path in the archive.
        if var report = locator {
            report.entry = contents.folder + "/" + report.entry
            contents.manifest.locators = [report.entry]
            locator = report
        }
        if var report = network {
            report.entry = contents.folder + "/" + report.entry
            network = report
        }
        let layers = context.imported.map { r in r.order.compactMap { r.layers[$0] } } ?? []
        var estimate: Int64 = 4096
        for file in contents.files {
            switch file.source {
            case .file(let path): estimate += (try? RandomAccessFile(path: path).size) ?? 0
            default: estimate += 1024
            }
        }
        estimate += Int64(maps.count) * 8192 + Int64(thumbnail?.count ?? 0) * Int64(1 + maps.count)
        return Plan(
            contents: contents, extent: extent, mapCounts: counts, layers: layers, estimatedSize: estimate, warnings: context.warnings.list,
            classes: context.warnings.classes, backdrop: tiling, locator: locator, network: network)
    }

    /// A package time given as Unix seconds or an ISO 8601 date, from 1970 to 9999; nil
    /// for anything else.
    public static func timestamp(_ text: String) -> Int64? {
        guard let seconds = Int64(text) ?? ISODate.parse(text), (0...latestTimestamp).contains(seconds) else { return nil }
        return seconds
    }

    /// `$SOURCE_DATE_EPOCH` when set, for reproducible builds; nil when not (now is meant).
    /// Throws `ProjectError` (`invalidValue`) for a value that is not Unix seconds from 1970
    /// to 9999.
    public static func sourceDateEpoch() throws -> Int64? {
        guard let epoch = getenv("SOURCE_DATE_EPOCH").map({ String(cString: $0) }) else { return nil }
        guard let seconds = Int64(epoch), (0...latestTimestamp).contains(seconds) else {
            throw ProjectError(kind: .invalidValue, file: "SOURCE_DATE_EPOCH", key: "", line: nil, message: "'\(epoch)' is not Unix seconds between 1970 and 9999")
        }
        return seconds
    }

    public static func currentTime() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec)
    }

    static func canonicalPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// A GUID derived from `seed` (name-based, version 5 layout, SHA-256 rather than SHA-1), so
    /// a rebuilt package keeps its identity.
    public static func derivedGUID(_ seed: String) -> String {
        var digest = SHA256Digest()
        digest.update(Array(("mapbook-guid:" + seed).utf8))
        var bytes = Array(digest.finalizeHex().utf8.prefix(32))
        // Version nibble 5, variant bits 10.
        bytes[12] = UInt8(ascii: "5")
        let variant = "89ab".utf8.map { $0 }
        bytes[16] = variant[Int((bytes[16] % 4))]
        let hex = String(decoding: bytes, as: UTF8.self).uppercased()
        let h = Array(hex)
        return String(h[0..<8]) + "-" + String(h[8..<12]) + "-" + String(h[12..<16]) + "-" + String(h[16..<20]) + "-" + String(h[20..<32])
    }
}

/// The package software's version, written into packages.
public enum MapbookInfo {
    public static let version = "0.1.0"
}
