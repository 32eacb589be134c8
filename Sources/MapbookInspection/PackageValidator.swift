#if canImport(Glibc)
import Glibc
#endif
import MapbookPackage
import MapbookSupport

/// What `validate` checked and found.
public struct ValidationReport: Sendable {
    public var path: String
    public var diagnostics: [Diagnostic]
    public var entriesChecked: Int
    public var bytesChecked: Int64

    public func count(_ severity: Diagnostic.Severity) -> Int {
        diagnostics.filter { $0.severity == severity }.count
    }

    /// Clean: no errors, and with `strict` no warnings either. Notes never fail.
    /// What `mapbook portal publish` says when the package has errors (the first 20 and a
    /// verdict); nil when it has none.
    public var publishingRefusal: [String]? {
        let errors = diagnostics.filter { $0.severity == .error }
        guard !errors.isEmpty else { return nil }
        return errors.prefix(20).map(\.description)
            + (errors.count > 20 ? ["... and \(errors.count - 20) more (`mapbook validate \(path)` shows them all)"] : [])
            + ["error: '\(path)' is not a valid package (\(Format.count(errors.count, "error"))); fix it before publishing"]
    }

    /// What `mapbook validate` prints: every finding, then the verdict with the counts.
    public func lines(strict: Bool) -> [String] {
        func counted(_ severity: Diagnostic.Severity, _ noun: String) -> String { "\(count(severity)) \(noun)\(count(severity) == 1 ? "" : "s")" }
        let summary = [counted(.error, "error"), counted(.warning, "warning"), counted(.note, "note")].joined(separator: ", ")
        return diagnostics.map(\.description)
            + ["\(path): \(passes(strict: strict) ? "valid" : "NOT valid") (\(summary); \(Format.count(entriesChecked)) entries, \(Format.count(bytesChecked)) bytes checked)"]
    }

    public func passes(strict: Bool) -> Bool {
        !diagnostics.contains { $0.severity == .error || (strict && $0.severity == .warning) }
    }

    public var jsonValue: JSONValue {
        [
            "path": .string(path),
            "errors": .int(count(.error)), "warnings": .int(count(.warning)), "notes": .int(count(.note)),
            "entriesChecked": .int(entriesChecked), "bytesChecked": .integer(bytesChecked),
            "diagnostics": .array(diagnostics.map(\.jsonValue)),
        ]
    }
}

/// Settings for `PackageValidator`.
public struct ValidationOptions: Sendable {
    /// A deflated entry expanding more than this many times (and past 1 MiB) is treated as a
    /// ZIP bomb: reported and not decompressed.
    public var maximumCompressionRatio: Double = 200
    /// The time expiration is judged against, in epoch milliseconds.
    public var now: Int64
    /// The keys whose signatures are trusted (the device library's): a package signed by
    /// none of them is reported with a warning.
    public var trustedKeys: [PublicSigningKey] = []

    public init(now: Int64? = nil, trustedKeys: [PublicSigningKey] = []) {
        self.trustedKeys = trustedKeys
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        self.now = now ?? (Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000)
    }
}

/// Checks a package and reports every finding, not just the first (DESIGN.md 3.6).
///
/// Checks the ZIP structure (end records, local headers, overlaps, CRCs), that every entry is
/// stored with a safe, unique name, the manifest and its hashes, the item files, that every map
/// parses and every layer path resolves (tables included), bookmark extents, the thumbnail,
/// the expiration, GeoPackages, tile packages (bundle indexes, levels, the tile map against the
/// bundles, every vector tile against MVT 2.1; a standalone .vtpk or .tpkx is checked as one)
/// and locator references. Reads each entry
/// once, computing CRC-32 and SHA-256 together.
public enum PackageValidator {
    public static func validate(path: String, options: ValidationOptions = ValidationOptions()) -> ValidationReport {
        var v = Run(path: path, options: options)
        v.run()
        return ValidationReport(path: path, diagnostics: v.diagnostics, entriesChecked: v.entriesChecked, bytesChecked: v.bytesChecked)
    }
}

private struct Run {
    let path: String
    let options: ValidationOptions
    var diagnostics: [Diagnostic] = []
    var entriesChecked = 0
    var bytesChecked: Int64 = 0
    var archive: ZipArchive!
    /// The package, once its manifest has been read.
    var package: MobileMapPackage?
    /// Entries whose contents must not be read (bombs, unreadable, not stored).
    var skipped = Set<String>()
    var databases: [String: SQLiteDatabase] = [:]
    var databaseFailures = Set<String>()

    init(path: String, options: ValidationOptions) {
        self.path = path
        self.options = options
    }

    mutating func add(_ severity: Diagnostic.Severity, _ code: String, entry: String? = nil, _ message: String) {
        diagnostics.append(Diagnostic(severity, code, entry: entry, message))
    }

    mutating func run() {
        let file: RandomAccessFile
        do {
            file = try RandomAccessFile(path: path)
        } catch {
            add(.error, "file.open", error.description)
            return
        }
        do {
            archive = try ZipArchive(range: ByteRange(file: file), displayPath: path)
        } catch {
            add(.error, "zip.structure", error.message)
            return
        }
        for issue in archive.issues { add(.warning, "zip.structure", issue) }
        if archive.entries.isEmpty {
            add(.error, "zip.empty", "the archive has no entries")
            return
        }
        checkNames()
        checkLayout()
        // A standalone tile package (.vtpk, .tpkx) has no manifest; it is checked as itself.
        if MobileMapPackage.findManifest(in: archive) == nil, let tiles = try? TilePackage(archive: archive) {
            checkContents(manifest: nil)
            checkItemFiles(manifest: nil, expectedType: tiles.kind.rawValue)
            do {
                try checkTiles(tiles, entry: nil)
            } catch {
                add(.error, "tiles.invalid", error.message)
            }
            diagnostics.sort { $0.severity < $1.severity }
            return
        }
        let manifest = readManifest()
        checkContents(manifest: manifest)
        checkItemFiles(manifest: manifest)
        guard let manifest else { return }
        checkMaps(manifest: manifest)
        checkThumbnail(manifest: manifest)
        checkExpiration(manifest)
        checkTilePackages()
        checkDatabases()
        checkLocators(manifest)
        diagnostics.sort { $0.severity < $1.severity }
    }

    // MARK: ZIP entries

    mutating func checkNames() {
        var normalized: [String: String] = [:]
        var folded: [String: String] = [:]
        for entry in archive.entries {
            if let problem = EntryName.problem(entry.name) {
                add(.error, "name.unsafe", entry: entry.name, "\(problem); extracting it could write outside the target folder")
                skipped.insert(entry.name)
            }
            if !entry.nameIsUTF8 {
                add(.warning, "name.encoding", entry: entry.name, "the name is not UTF-8 (read as Latin-1)")
            }
            if entry.isSymbolicLink {
                add(.error, "entry.link", entry: entry.name, "a symbolic link; packages hold only files")
                skipped.insert(entry.name)
            } else if entry.isSpecialFile {
                add(.error, "entry.special", entry: entry.name, "a device, FIFO or socket entry; packages hold only files")
                skipped.insert(entry.name)
            }
            if entry.isEncrypted {
                add(.error, "entry.encrypted", entry: entry.name, "encrypted; packages cannot be read in place when encrypted")
                skipped.insert(entry.name)
            }
            switch entry.method {
            case .stored:
                if entry.compressedSize != entry.uncompressedSize {
                    add(.error, "zip.size", entry: entry.name, "stored, but its compressed size (\(entry.compressedSize)) differs from its size (\(entry.uncompressedSize))")
                    skipped.insert(entry.name)
                }
            case .deflated:
                add(.error, "entry.not-stored", entry: entry.name, "deflated; every package entry must be stored (uncompressed) so it can be read in place; rebuild the package")
                let ratio = Double(entry.uncompressedSize) / Double(max(entry.compressedSize, 1))
                if ratio > options.maximumCompressionRatio && entry.uncompressedSize > 1 << 20 {
                    add(.error, "zip.ratio", entry: entry.name, "expands \(Int(ratio.rounded())) times (\(entry.compressedSize) to \(entry.uncompressedSize) bytes), past the limit of \(Int(options.maximumCompressionRatio)): a ZIP bomb? Not decompressed")
                    skipped.insert(entry.name)
                }
            case .other(let m):
                add(.error, "entry.not-stored", entry: entry.name, "compressed with method \(m), which cannot be read; every package entry must be stored")
                skipped.insert(entry.name)
            }
            let n = EntryName.normalized(entry.name)
            if let first = normalized[n], first != entry.name {
                add(.error, "name.duplicate", entry: entry.name, "names the same file as '\(first)'")
            }
            normalized[n] = normalized[n] ?? entry.name
            if let first = folded[n.lowercased()], first != n {
                add(.warning, "name.case", entry: entry.name, "differs from '\(first)' only in case; the two collide on case-insensitive file systems")
            }
            folded[n.lowercased()] = folded[n.lowercased()] ?? n
        }
        let counts = archive.duplicateCounts()
        for name in archive.duplicateNames {
            add(.error, "name.duplicate", entry: name, "occurs \(counts[name] ?? 2) times; readers would pick different copies")
        }
    }

    /// Local headers agree with the central directory; entries do not overlap each other or it.
    mutating func checkLayout() {
        for (entry, kind, message) in archive.layoutProblems() {
            let code: String
            switch kind {
            case .overlap: code = "zip.overlap"
            case .bounds: code = "zip.bounds"
            case .localHeader: code = "zip.local-header"
            }
            add(.error, code, entry: entry.name, message)
            skipped.insert(entry.name)
        }
    }

    // MARK: Manifest and hashes

    mutating func readManifest() -> PackageManifest? {
        guard let entry = MobileMapPackage.findManifest(in: archive) else {
            add(.error, "manifest.missing", "no .info manifest at the root of the archive: not a mobile map package")
            return nil
        }
        guard !skipped.contains(entry.name) else { return nil }
        do {
            package = try MobileMapPackage(archive: archive, refusingBadSignature: false)
        } catch {
            add(.error, "manifest.invalid", entry: entry.name, error.message)
            return nil
        }
        let manifest = package!.manifest
        if manifest.type != PackageManifest.mobileMapPackageType {
            add(.warning, "manifest.type", entry: entry.name, "type is \(manifest.type.map { "'\($0)'" } ?? "missing"), expected '\(PackageManifest.mobileMapPackageType)'")
        }
        for (key, value) in [("created", manifest.created), ("modified", manifest.modified)] {
            if let ms = value, !(0...253_402_300_799_000).contains(ms) {
                add(.warning, "manifest.date", entry: entry.name, "'\(key)' is \(ms), not a time between 1970 and 9999 in epoch milliseconds")
            }
        }
        if (manifest.title ?? "").isEmpty { add(.warning, "manifest.title", entry: entry.name, "no title: portals and the library show the file name instead") }
        if (manifest.guid ?? "").isEmpty { add(.warning, "manifest.guid", entry: entry.name, "no guid") }
        if manifest.maps == nil { add(.note, "manifest.maps", entry: entry.name, "no 'maps' list; maps are found by scanning for .mmap files") }
        checkSignature(package!, entry: entry)
        if manifest.mapbook == nil {
            add(.note, "manifest.no-hashes", entry: entry.name, "no 'mapbook' section, so entry hashes cannot be checked (a package made by ArcGIS?); CRCs are still checked")
        } else if let version = manifest.mapbook?.formatVersion, version > MapbookSection.currentFormatVersion {
            add(.warning, "manifest.format-version", entry: entry.name, "format version \(version) is newer than this tool's \(MapbookSection.currentFormatVersion)")
        }
        return manifest
    }

    /// The signature entry against the manifest, and its keys against the trusted ones.
    mutating func checkSignature(_ package: MobileMapPackage, entry: ZipEntry) {
        switch package.signature {
        case .unsigned:
            add(.note, "signature.none", entry: entry.name, "not signed: nothing shows who made the package ('mapbook sign' signs it)")
        case .invalid(let error):
            let code: String
            switch error.kind {
            case .duplicate: code = "signature.duplicate"
            case .otherManifest: code = "signature.manifest"
            case .badSignature: code = "signature.bad"
            default: code = "signature.invalid"
            }
            add(.error, code, entry: archive.entries.first { PackageSignature.isSignatureEntry($0.name) }?.name, error.message)
        case .signed(let keys):
            let signature = archive.entries.first { PackageSignature.isSignatureEntry($0.name) }?.name
            let listed = keys.map(\.fingerprint).joined(separator: ", ")
            if package.manifest.mapbook?.entries == nil {
                add(.error, "signature.invalid", entry: signature, "signed, but the manifest records no entry digests, so the signature covers none of the package's contents")
            } else if keys.contains(where: options.trustedKeys.contains) {
                add(.note, "signature.trusted", entry: signature, "signed by \(listed), a trusted key")
            } else {
                add(.warning, "signature.untrusted", entry: signature, "signed by \(listed), which this library does not trust ('mapbook library trust add KEY.pub' trusts a key)")
            }
        }
    }

    /// Reads every entry once: CRC-32 against the central directory, size and SHA-256 against
    /// the manifest.
    mutating func checkContents(manifest: PackageManifest?) {
        let digests = manifest?.mapbook?.entries ?? [:]
        let manifestName = MobileMapPackage.findManifest(in: archive)?.name
        for entry in archive.entries {
            if entry.isDirectory && entry.uncompressedSize == 0 { continue }
            let expected = digests[entry.name]
            if manifest?.mapbook != nil, expected == nil, entry.name != manifestName, !PackageSignature.isSignatureEntry(entry.name) {
                // In a signed package nothing vouches for an entry the manifest does not list.
                if package?.signature.isSigned == true {
                    add(.error, "manifest.unlisted", entry: entry.name, "not listed in the signed manifest: added after signing")
                } else {
                    add(.warning, "manifest.unlisted", entry: entry.name, "not listed in the manifest's entries, so its integrity cannot be checked")
                }
            }
            guard !skipped.contains(entry.name) else { continue }
            var crc = CRC32()
            var sha = SHA256Digest()
            var count: Int64 = 0
            let hashing = expected?.sha256 != nil
            do {
                try archive.stream(entry, limit: entry.uncompressedSize) { chunk in
                    crc.update(chunk)
                    if hashing { sha.update(chunk) }
                    count += Int64(chunk.count)
                }
            } catch {
                add(.error, "zip.read", entry: entry.name, "\(error)")
                skipped.insert(entry.name)
                continue
            }
            entriesChecked += 1
            bytesChecked += count
            if count != entry.uncompressedSize {
                add(.error, "zip.size", entry: entry.name, "holds \(count) bytes, the central directory says \(entry.uncompressedSize)")
                skipped.insert(entry.name)
            } else if crc.value != entry.crc32 {
                add(.error, "zip.crc", entry: entry.name, "CRC-32 is \(hex8(crc.value)), the central directory says \(hex8(entry.crc32)): the data is damaged")
                skipped.insert(entry.name)
            }
            if let expected {
                if let size = expected.size, size != count {
                    add(.error, "manifest.size", entry: entry.name, "is \(count) bytes, the manifest says \(size)")
                } else if let want = expected.sha256, sha.finalizeHex() != want.lowercased() {
                    add(.error, "manifest.hash", entry: entry.name, "SHA-256 differs from the manifest's: the entry was changed after packaging")
                }
            }
        }
        for name in digests.keys.sorted() where archive.entry(named: name) == nil {
            add(.error, "manifest.missing-entry", entry: name, "listed in the manifest but not in the archive")
        }
    }

    func hex8(_ v: UInt32) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 8 - s.count) + s
    }

    func readable(_ entry: ZipEntry) -> Bool { !skipped.contains(entry.name) }

    mutating func checkItemFiles(manifest: PackageManifest?, expectedType: String = PackageManifest.mobileMapPackageType) {
        if let entry = archive.entry(named: "esriinfo/iteminfo.xml") {
            if readable(entry) {
                do {
                    let info = try ItemInfo.parse(try archive.read(entry), path: entry.name)
                    if let guid = manifest?.guid, !info.guid.isEmpty, info.guid.lowercased() != guid.lowercased() {
                        add(.warning, "item.guid", entry: entry.name, "guid \(info.guid) differs from the manifest's \(guid)")
                    }
                    if info.type != expectedType {
                        add(.warning, "item.type", entry: entry.name, "type is '\(info.type)', expected '\(expectedType)'")
                    }
                } catch let error as PackageFormatError {
                    add(.error, "item.invalid", entry: entry.name, error.message)
                } catch {
                    add(.error, "item.invalid", entry: entry.name, "\(error)")
                }
            }
        } else {
            add(.warning, "item.missing", entry: "esriinfo/iteminfo.xml", "missing: ArcGIS and portals read the item's title, tags and extent from it")
        }
        if let entry = archive.entry(named: "esriinfo/item.pkinfo") {
            if readable(entry) {
                do {
                    _ = try PackageInfo.parse(try archive.read(entry), path: entry.name)
                } catch let error as PackageFormatError {
                    add(.error, "item.invalid", entry: entry.name, error.message)
                } catch {
                    add(.error, "item.invalid", entry: entry.name, "\(error)")
                }
            }
        } else {
            add(.warning, "item.missing", entry: "esriinfo/item.pkinfo", "missing: ArcGIS identifies packages by it")
        }
    }

    // MARK: Maps

    mutating func checkMaps(manifest: PackageManifest) {
        guard let package else { return }
        let entries = package.mapEntries
        if entries.isEmpty {
            add(.error, "map.none", "the package holds no maps (.mmap)")
        }
        for name in package.unresolvedMapNames {
            add(.error, "map.missing", entry: package.manifestEntry.name, "lists map '\(name)', but the package has no such .mmap")
        }
        for entry in entries where readable(entry) {
            let map: MobileMap
            do {
                map = try MobileMap.parse(try archive.read(entry, limit: 256 << 20), path: entry.name)
            } catch let error as PackageFormatError {
                add(.error, "map.invalid", entry: entry.name, error.message)
                continue
            } catch {
                add(.error, "map.invalid", entry: entry.name, "\(error)")
                continue
            }
            let mapSR = map.map.spatialReference
            if mapSR == nil {
                add(.warning, "map.spatial-reference", entry: entry.name, "the map has no spatialReference")
            }
            for layer in (map.map.operationalLayers ?? []) + (map.map.tables ?? []) + (map.map.baseMap?.baseMapLayers ?? []) {
                for (child, _) in layer.flattened() {
                    checkLayer(child, mapEntry: entry, package: package)
                }
            }
            for (i, bookmark) in (map.map.bookmarks ?? []).enumerated() {
                let label = bookmark.name.map { "bookmark '\($0)'" } ?? "bookmark \(i + 1)"
                if bookmark.name == nil || bookmark.name!.isEmpty {
                    add(.warning, "bookmark.name", entry: entry.name, "\(label) has no name")
                }
                guard let extent = bookmark.effectiveExtent else {
                    if let point = bookmark.viewpoint?.targetPoint, let x = point.x, let y = point.y {
                        let sr = point.spatialReference ?? mapSR
                        let limit = sr?.isGeographic == true ? (180.000001, 90.000001) : sr?.isWebMercator == true ? (40_075_016.7, 20_037_508.35) : (Double.greatestFiniteMagnitude, Double.greatestFiniteMagnitude)
                        if !(x.isFinite && y.isFinite && abs(x) <= limit.0 && abs(y) <= limit.1) {
                            add(.error, "bookmark.extent", entry: entry.name, "\(label) is centred on (\(x), \(y)), outside the world of its spatial reference")
                        } else if !(bookmark.viewpoint?.scale.map { $0 > 0 && $0 < 1e10 } ?? false) {
                            add(.error, "bookmark.extent", entry: entry.name, "\(label) is centred on a point but has no sensible scale (\(bookmark.viewpoint?.scale.map { "\($0)" } ?? "none"))")
                        }
                    } else {
                        add(.error, "bookmark.extent", entry: entry.name, "\(label) has neither an extent nor a viewpoint to show")
                    }
                    continue
                }
                checkExtent(extent, fallback: mapSR, what: label, entry: entry.name, code: "bookmark.extent", severity: .error)
                if let scale = bookmark.viewpoint?.scale, !(scale > 0 && scale.isFinite) {
                    add(.error, "bookmark.extent", entry: entry.name, "\(label) has a scale of \(scale)")
                }
            }
            if let viewpoint = map.map.initialState?.viewpoint, let extent = viewpoint.targetExtent {
                checkExtent(extent, fallback: mapSR, what: "the initial viewpoint", entry: entry.name, code: "map.initial-extent", severity: .warning)
            }
        }
    }

    mutating func checkLayer(_ layer: OperationalLayer, mapEntry: ZipEntry, package: MobileMapPackage) {
        let label = "layer '\(layer.displayName)'"
        if let renderer = layer.renderer {
            let bad = Self.invalidColors(renderer.jsonValue)
            if !bad.isEmpty {
                add(.warning, "map.symbol", entry: mapEntry.name, "\(label) has \(bad.count) symbol colour\(bad.count == 1 ? "" : "s") that are not [r, g, b, a] in 0-255, e.g. \(JSONWriter.string(bad[0], style: .compact))")
            }
        }
        guard let path = layer.path else {
            // Map notes and sketches carry their features inline.
            if layer.original.contains("featureCollection") { return }
            let needsSource = ["ArcGISFeatureLayer", "VectorTileLayer", "ArcGISTiledMapServiceLayer"].contains(layer.layerType ?? "")
            if needsSource && layer.url == nil && layer.itemId == nil {
                add(.error, "map.path", entry: mapEntry.name, "\(label) has no path, url or itemId: it has no data")
            }
            return
        }
        guard let dataPath = LayerDataPath(path) else {
            add(.warning, "map.path", entry: mapEntry.name, "\(label) has path '\(path)', which is not a file: URL inside the package")
            return
        }
        guard let dataEntry = package.entry(for: dataPath, mapEntry: mapEntry) else {
            add(.error, "map.path", entry: mapEntry.name, "\(label) points at '\(path)', but '\(dataPath.entryName(relativeTo: LayerDataPath.folder(of: mapEntry.name)))' is not in the package")
            return
        }
        guard dataPath.table != nil || dataPath.itemId != nil else { return }
        guard let database = database(for: dataEntry, package: package) else { return }
        do {
            if let table = dataPath.table {
                if try !database.tableExists(table) {
                    add(.error, "map.path", entry: mapEntry.name, "\(label) names table '\(table)', which \(dataEntry.name) does not hold")
                }
            } else if let itemId = dataPath.itemId {
                if try database.tableExists("GDB_ServiceItems"),
                    try database.scalar("SELECT 1 FROM GDB_ServiceItems WHERE ItemId = ?", [.integer(Int64(itemId))]) == nil
                {
                    add(.error, "map.path", entry: mapEntry.name, "\(label) names itemId \(itemId), which \(dataEntry.name) does not hold")
                }
            }
        } catch {
            add(.error, "data.invalid", entry: dataEntry.name, error.message)
        }
    }

    /// Every `color` value under `value` that is neither null nor 3 or 4 channels in 0-255.
    static func invalidColors(_ value: JSONValue) -> [JSONValue] {
        switch value {
        case .object(let object):
            return object.entries.flatMap { entry -> [JSONValue] in
                if entry.key == "color", !entry.value.isNull, RGBAColor(entry.value) == nil { return [entry.value] }
                return invalidColors(entry.value)
            }
        case .array(let items):
            return items.flatMap(invalidColors)
        default:
            return []
        }
    }

    mutating func database(for entry: ZipEntry, package: MobileMapPackage) -> SQLiteDatabase? {
        if let db = databases[entry.name] { return db }
        guard readable(entry), !databaseFailures.contains(entry.name) else { return nil }
        do {
            let db = try package.database(entry)
            databases[entry.name] = db
            return db
        } catch let error as SQLiteError {
            databaseFailures.insert(entry.name)
            add(.error, "data.invalid", entry: entry.name, error.message)
        } catch {
            databaseFailures.insert(entry.name)
            add(.error, "data.invalid", entry: entry.name, "\(error)")
        }
        return nil
    }

    /// An extent is complete, finite, non-empty and inside its spatial reference's world.
    mutating func checkExtent(_ extent: Envelope, fallback: SpatialReference?, what: String, entry: String, code: String, severity: Diagnostic.Severity) {
        guard let b = extent.bounds else {
            add(severity, code, entry: entry, "\(what) has no complete extent (xmin, ymin, xmax, ymax)")
            return
        }
        if !b.hasArea {
            add(severity, code, entry: entry, "\(what) has an empty or inverted extent \(b)")
            return
        }
        let sr = extent.spatialReference ?? fallback
        if sr?.isGeographic == true {
            if b.minX < -180.000001 || b.maxX > 180.000001 || b.minY < -90.000001 || b.maxY > 90.000001 {
                add(severity, code, entry: entry, "\(what) extent \(b) lies outside longitude -180..180, latitude -90..90")
            }
        } else if sr?.isWebMercator == true {
            let limit = 20_037_508.342_789_244 * 1.000001
            if b.minX < -limit * 2 || b.maxX > limit * 2 || b.minY < -limit || b.maxY > limit {
                add(.warning, code, entry: entry, "\(what) extent \(b) lies outside the Web Mercator world")
            }
        }
    }

    // MARK: Thumbnail, expiration

    mutating func checkThumbnail(manifest: PackageManifest) {
        var found = false
        let thumbnailEntry: String
        if let entry = archive.entry(named: "esriinfo/iteminfo.xml"), readable(entry),
            let info = try? ItemInfo.parse(try archive.read(entry), path: entry.name), !info.thumbnail.isEmpty
        {
            thumbnailEntry = "esriinfo/" + info.thumbnail
        } else {
            thumbnailEntry = "esriinfo/thumbnail/thumbnail.png"
        }
        if let entry = archive.entry(named: thumbnailEntry) {
            found = true
            if readable(entry), let bytes = try? archive.read(entry, limit: 64 << 20), ImageKind(bytes) == nil {
                add(.error, "thumbnail.invalid", entry: entry.name, "not a PNG or JPEG image")
            }
        }
        if let uri = manifest.thumbnail, !uri.isEmpty {
            found = true
            if DataURI.decode(uri).map(ImageKind.init) == nil {
                add(.warning, "thumbnail.invalid", entry: MobileMapPackage.findManifest(in: archive)?.name, "the thumbnail is not a data URI holding a PNG or JPEG image")
            }
        }
        if !found {
            add(.warning, "thumbnail.missing", entry: thumbnailEntry, "no thumbnail: the library and portals show a blank tile")
        }
    }

    mutating func checkExpiration(_ manifest: PackageManifest) {
        guard let expiration = manifest.expiration else { return }
        let entry = MobileMapPackage.findManifest(in: archive)?.name
        if expiration.kind == nil {
            add(.error, "expiration.type", entry: entry, "expiration type is \(expiration.type.map { "'\($0)'" } ?? "missing"); use allowExpiredAccess or preventExpiredAccess")
        }
        guard let when = expiration.dateTime else {
            add(.error, "expiration.date", entry: entry, "expiration has no dateTime (epoch milliseconds)")
            return
        }
        if let created = manifest.created, when <= created {
            add(.warning, "expiration.date", entry: entry, "expires \(ISODate.format(milliseconds: when)), before it was created (\(ISODate.format(milliseconds: created)))")
        }
        if when <= options.now {
            let blocked = expiration.kind == .preventExpiredAccess ? "; readers will refuse to open it" : ""
            add(.warning, "expiration.expired", entry: entry, "expired on \(ISODate.format(milliseconds: when))\(blocked)")
        }
        if expiration.kind == .preventExpiredAccess, (expiration.message ?? "").isEmpty {
            add(.note, "expiration.message", entry: entry, "no message tells users why the package will not open once expired")
        }
    }

    // MARK: Nested data

    mutating func checkTilePackages() {
        for entry in archive.entries where readable(entry) {
            guard entry.hasSuffix(ignoringCase: ".vtpk") || entry.hasSuffix(ignoringCase: ".tpkx"), entry.method == .stored else { continue }
            do {
                let nested = try ZipArchive(range: try archive.dataRange(of: entry), displayPath: entry.name)
                for issue in nested.issues { add(.warning, "tiles.structure", entry: entry.name, issue) }
                for inner in nested.entries where inner.method != .stored {
                    add(.error, "tiles.not-stored", entry: entry.name, "'\(inner.name)' is \(inner.method); tiles are read in place only from stored entries")
                }
                try checkTiles(try TilePackage(archive: nested), entry: entry.name)
            } catch let error as PackageFormatError {
                add(.error, "tiles.invalid", entry: entry.name, error.message)
            } catch let error as ArchiveError {
                add(.error, "tiles.invalid", entry: entry.name, error.message)
            } catch {
                add(.error, "tiles.invalid", entry: entry.name, "\(error)")
            }
        }
    }

    /// Bundle indexes within their files, root.json's levels, and the tile map against the
    /// bundles. `entry` names a nested package; nil for a standalone one.
    mutating func checkTiles(_ tiles: TilePackage, entry: String?) throws(PackageFormatError) {
        var indexesSound = true
        for bundle in tiles.bundles {
            let index = try tiles.index(of: bundle)
            for problem in index.indexProblems() {
                add(.error, "tiles.bundle-index", entry: entry ?? bundle.entry.name, entry == nil ? problem : "\(bundle.entry.name): \(problem)")
                indexesSound = false
            }
        }
        if tiles.bundles.isEmpty {
            add(.warning, "tiles.empty", entry: entry, "the tile package holds no bundles")
        }
        guard indexesSound else { return }
        diagnostics += tiles.consistencyFindings(entry: entry)
        if tiles.kind == .vectorTilePackage { diagnostics += VectorTileCheck.findings(tiles, entry: entry) }
    }

    mutating func checkDatabases() {
        guard let package else { return }
        for entry in archive.entries where readable(entry) {
            let isGeoPackage = entry.hasSuffix(ignoringCase: ".gpkg")
            guard isGeoPackage || entry.hasSuffix(ignoringCase: ".geodatabase"), entry.method == .stored else { continue }
            guard let db = database(for: entry, package: package) else { continue }
            do {
                if isGeoPackage {
                    let id = UInt32(truncatingIfNeeded: try db.scalar("PRAGMA application_id")?.int64 ?? 0)
                    if id != 0x4750_4B47 {
                        add(.warning, "data.geopackage", entry: entry.name, "application_id is not 'GPKG' (0x47504B47)")
                    }
                    if try !db.tableExists("gpkg_contents") {
                        add(.error, "data.geopackage", entry: entry.name, "no gpkg_contents table: not a GeoPackage")
                    }
                }
                let result = try db.query("PRAGMA quick_check(10)").compactMap { $0.first?.text }
                if result != ["ok"] {
                    add(.error, "data.integrity", entry: entry.name, "SQLite integrity check failed: " + result.joined(separator: "; "))
                }
            } catch {
                add(.error, "data.invalid", entry: entry.name, error.message)
            }
        }
    }

    mutating func checkLocators(_ manifest: PackageManifest) {
        for listed in manifest.locators ?? [] where archive.entry(named: listed) == nil {
            add(.error, "locator.missing", entry: MobileMapPackage.findManifest(in: archive)?.name, "lists locator '\(listed)', which is not in the package")
        }
        for entry in archive.entries where entry.hasSuffix(ignoringCase: ".loc.json") && readable(entry) {
            let composite: CompositeDefinition
            do {
                composite = try CompositeDefinition.parse(try archive.read(entry), path: entry.name)
            } catch let error as PackageFormatError {
                add(.error, "locator.invalid", entry: entry.name, error.message)
                continue
            } catch {
                add(.error, "locator.invalid", entry: entry.name, "\(error)")
                continue
            }
            for participant in composite.participants {
                let path = participant.path
                let resolved = LayerDataPath("file:./" + path)?.entryName(relativeTo: LayerDataPath.folder(of: entry.name)) ?? path
                if archive.entry(named: resolved) == nil && archive.entry(named: resolved + "/locator.json") == nil {
                    add(.error, "locator.missing", entry: entry.name, "participant '\(participant.name)' points at '\(path)', which is not in the package")
                }
            }
        }
    }
}
