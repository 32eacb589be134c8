#if canImport(Glibc)
import Glibc
#endif
import MapbookData
import MapbookPackage
import MapbookSupport

/// Builds an `InspectionReport` for a package or a standalone Esri file.
///
/// Reads `.mmpk`, `.vtpk`, `.tpkx` (ZIP archives, told apart by content), `.geodatabase` and
/// `.gpkg` (SQLite), Compact Cache `.bundle` files and Compact Cache folders. Everything is
/// read in place. Parts that cannot be read become notes in the report; only a file that is
/// not one of these at all is an error.
public enum PackageInspector {
    public static func inspect(path: String) throws -> InspectionReport {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw ArchiveError(kind: .io(errno: errno), operation: "open", path: path, message: FileSystem.errorMessage())
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            return try inspectCacheFolder(path)
        }
        let file = try RandomAccessFile(path: path)
        let head = file.size >= 16 ? try file.read(at: 0, count: 16) : []
        if head.starts(with: Array("SQLite format 3".utf8)) {
            return try inspectDatabase(path, size: file.size)
        }
        if path.lowercased().hasSuffix(".bundle") {
            return try inspectBundle(file)
        }
        let archive: ZipArchive
        do {
            archive = try ZipArchive(range: ByteRange(file: file), displayPath: path)
        } catch {
            if head.starts(with: [0x50, 0x4B]) { throw error }
            throw PackageFormatError(kind: .wrongFormat, path: path, message: "not a package: expected a ZIP archive (.mmpk, .vtpk, .tpkx), a SQLite database (.geodatabase, .gpkg) or a Compact Cache bundle")
        }
        if MobileMapPackage.findManifest(in: archive) != nil {
            return try inspectPackage(MobileMapPackage(archive: archive))
        }
        if let tiles = try? TilePackage(archive: archive) {
            return inspectTilePackage(tiles, size: file.size)
        }
        throw PackageFormatError(kind: .wrongFormat, path: path, message: "a ZIP archive, but neither a mobile map package (no .info manifest at its root) nor a tile package (no root.json)")
    }

    // MARK: - Mobile map packages

    static func inspectPackage(_ package: MobileMapPackage) throws -> InspectionReport {
        let archive = package.archive
        var report = InspectionReport(path: package.path, kind: PackageManifest.mobileMapPackageType, fileSize: archive.range.length)
        report.entries = archive.entries.map {
            .init(name: $0.name, size: $0.uncompressedSize, compressedSize: $0.compressedSize, method: $0.method.description)
        }
        report.notes += archiveProblems(archive)
        report.item = itemSummary(package, notes: &report.notes)

        // Data files first, so layers can say what they point at.
        var dataFiles: [String: InspectionReport.DataFileSummary] = [:]
        for entry in archive.entries {
            guard entry.hasSuffix(ignoringCase: ".gpkg") || entry.hasSuffix(ignoringCase: ".geodatabase") else { continue }
            do {
                let summary = try dataFileSummary(package, entry)
                dataFiles[entry.name] = summary
                report.dataFiles.append(summary)
            } catch {
                report.notes.append("\(error)")
            }
        }

        for entry in package.mapEntries {
            do {
                report.maps.append(mapSummary(try package.map(entry), entry: entry, package: package, dataFiles: dataFiles, notes: &report.notes))
            } catch {
                report.notes.append("\(error)")
            }
        }
        for name in package.unresolvedMapNames {
            report.notes.append("'\(package.path)[\(package.manifestEntry.name)]': lists map '\(name)', but no such .mmap is in the package")
        }

        for entry in archive.entries {
            guard entry.hasSuffix(ignoringCase: ".vtpk") || entry.hasSuffix(ignoringCase: ".tpkx") else { continue }
            do {
                let tiles = try package.tilePackage(entry)
                report.tilePackages.append(try tileSummary(tiles, entry: entry.name, bytes: entry.uncompressedSize))
            } catch {
                report.notes.append("\(error)")
            }
        }

        report.locators = locators(in: archive, manifest: package.manifest, notes: &report.notes)
        return report
    }

    /// What is wrong with the archive itself, from the central directory alone (`validate`
    /// also reads every local header and checks every CRC).
    static func archiveProblems(_ archive: ZipArchive) -> [String] {
        var notes = archive.issues.map { "'\(archive.displayPath)': \($0)" }
        for entry in archive.entries {
            let path = "'\(archive.displayPath)[\(entry.name)]'"
            if let problem = EntryName.problem(entry.name) { notes.append("\(path): unsafe entry name: \(problem)") }
            if entry.isSymbolicLink { notes.append("\(path): a symbolic link; packages hold only files") }
            if entry.isEncrypted { notes.append("\(path): encrypted") }
            if entry.method != .stored {
                notes.append("\(path): \(entry.method) (\(entry.compressedSize) bytes for \(entry.uncompressedSize)), not stored: it cannot be read in place")
            }
        }
        for name in archive.duplicateNames {
            notes.append("'\(archive.displayPath)[\(name)]': the name occurs more than once; readers would pick different copies")
        }
        return notes
    }

    /// The package's description from its manifest, and from `iteminfo.xml` only for what the
    /// manifest leaves out: ours hold it all, and reading the XML loads libxml2 and ICU, a
    /// millisecond of a small package's `inspect` (issue 36). `validate` reads it always.
    static func itemSummary(_ package: MobileMapPackage, notes: inout [String]) -> InspectionReport.ItemSummary {
        let summary = itemSummary(package.manifest, nil, archive: package.archive)
        guard summary.lacksWhatItemInfoHolds else { return summary }
        do {
            return itemSummary(package.manifest, try package.itemInfo(), archive: package.archive)
        } catch {
            notes.append("\(error)")
            return summary
        }
    }

    static func itemSummary(_ manifest: PackageManifest?, _ itemInfo: ItemInfo?, archive: ZipArchive) -> InspectionReport.ItemSummary {
        var s = InspectionReport.ItemSummary()
        func nonEmpty(_ v: String?) -> String? { v.flatMap { $0.isEmpty ? nil : $0 } }
        s.title = nonEmpty(manifest?.title) ?? nonEmpty(itemInfo?.title)
        s.name = nonEmpty(manifest?.name) ?? nonEmpty(itemInfo?.name)
        s.snippet = nonEmpty(manifest?.snippet) ?? nonEmpty(itemInfo?.snippet)
        s.summary = nonEmpty(manifest?.summary) ?? nonEmpty(itemInfo?.summary)
        s.description = nonEmpty(manifest?.description) ?? nonEmpty(itemInfo?.description)
        s.guid = nonEmpty(manifest?.guid) ?? nonEmpty(itemInfo?.guid)
        s.version = nonEmpty(manifest?.version) ?? nonEmpty(itemInfo?.version)
        s.type = nonEmpty(manifest?.type) ?? nonEmpty(itemInfo?.type)
        s.created = manifest?.created ?? itemInfo?.created.map { $0 * 1000 }
        s.modified = manifest?.modified ?? itemInfo?.modified.map { $0 * 1000 }
        s.tags = manifest?.tags ?? itemInfo?.tags ?? []
        s.extent = manifest?.extent ?? itemInfo?.extent
        s.spatialReference = nonEmpty(manifest?.spatialReference) ?? nonEmpty(itemInfo?.spatialReference)
        s.credits = nonEmpty(manifest?.accessInformation) ?? nonEmpty(itemInfo?.accessInformation)
        s.useLimitations = nonEmpty(manifest?.licenseInfo) ?? nonEmpty(itemInfo?.licenseInfo)
        s.expiration = manifest?.expiration
        s.generator = manifest?.mapbook?.generator
        s.formatVersion = manifest?.mapbook?.formatVersion
        // The manifest's data URI, the entry iteminfo.xml names, or the usual entry: any will do,
        // so the answer does not hang on which other fields sent us to the XML.
        let named = itemInfo.flatMap { $0.thumbnail.isEmpty ? nil : "esriinfo/" + $0.thumbnail }
        s.hasThumbnail = (manifest?.thumbnail?.isEmpty == false)
            || [named, "esriinfo/thumbnail/thumbnail.png"].contains { $0.flatMap(archive.entry(named:)) != nil }
        return s
    }

    static func dataFileSummary(_ package: MobileMapPackage, _ entry: ZipEntry) throws -> InspectionReport.DataFileSummary {
        let database = try package.database(entry)
        return try dataFileSummary(database, entry: entry.name, bytes: entry.uncompressedSize)
    }

    static func dataFileSummary(_ database: SQLiteDatabase, entry: String, bytes: Int64) throws -> InspectionReport.DataFileSummary {
        if try database.tableExists("GDB_Items") {
            let gdb = try MobileGeodatabase(database: database)
            return .init(entry: entry, kind: "Mobile Geodatabase", bytes: bytes, tables: gdb.tables.map {
                let (rows, problem) = count($0.name, in: database)
                return .init(name: $0.name, kind: $0.kind, geometryType: $0.geometryType, rowCount: rows, itemId: $0.itemId, layerName: $0.layerName, srsID: nil, problem: problem)
            })
        }
        let gpkg = try GeoPackageContents(database: database)
        return .init(entry: entry, kind: "GeoPackage", bytes: bytes, tables: gpkg.tables.map {
            // Tile and coverage tables hold no features; their rows are not counted.
            let (rows, problem) = ["features", "attributes"].contains($0.dataType) ? count($0.name, in: database) : (nil, nil)
            return .init(name: $0.name, kind: $0.dataType, geometryType: $0.geometryType, rowCount: rows, itemId: nil, layerName: $0.identifier, srsID: $0.srsID, problem: problem)
        })
    }

    /// A table's row count through `FeatureTable`, or why there is none.
    static func count(_ table: String, in database: SQLiteDatabase) -> (Int64?, String?) {
        do {
            guard let rows = try FeatureTable(database: database, table: table).count() else {
                return (nil, "a view or virtual table; its rows are not counted")
            }
            return (rows, nil)
        } catch {
            return (nil, error.message)
        }
    }

    static func mapSummary(
        _ map: MobileMap, entry: ZipEntry, package: MobileMapPackage,
        dataFiles: [String: InspectionReport.DataFileSummary], notes: inout [String]
    ) -> InspectionReport.MapSummary {
        let name = entry.name.split(separator: "/").last.map { String($0.dropLast(5)) } ?? entry.name
        var summary = InspectionReport.MapSummary(entry: entry.name, name: map.item.name ?? name, title: map.item.title, summary: map.item.summary ?? map.item.snippet)
        summary.wkid = map.map.spatialReference?.latestWkid ?? map.map.spatialReference?.wkid
        summary.initialExtent = map.map.initialState?.viewpoint?.targetExtent?.bounds ?? map.item.extent?.bounds

        func describe(_ layer: OperationalLayer, depth: Int, basemap: Bool) -> InspectionReport.LayerSummary {
            var l = InspectionReport.LayerSummary(title: layer.displayName, layerType: layer.layerType, path: layer.path, depth: depth, isBasemap: basemap)
            l.visible = layer.visibility
            l.opacity = layer.opacity
            l.minScale = layer.minScale ?? layer.layerDefinition?.minScale
            l.maxScale = layer.maxScale ?? layer.layerDefinition?.maxScale
            l.definitionExpression = layer.layerDefinition?.definitionExpression
            if let renderer = layer.renderer {
                l.rendererType = renderer.typeName
                l.rendererFields = renderer.fields
                switch renderer {
                case .uniqueValue(let r): l.rendererClasses = r.uniqueValueInfos?.count
                case .classBreaks(let r): l.rendererClasses = r.classBreakInfos?.count
                default: break
                }
            }
            if let dataPath = layer.dataPath {
                if let dataEntry = package.entry(for: dataPath, mapEntry: entry) {
                    let file = dataEntry.name.split(separator: "/").last.map(String.init) ?? dataEntry.name
                    var table: InspectionReport.TableSummary?
                    if let data = dataFiles[dataEntry.name] {
                        if let name = dataPath.table {
                            table = data.tables.first { $0.name == name } ?? data.tables.first { $0.name.lowercased() == name.lowercased() }
                        } else if let itemId = dataPath.itemId {
                            table = data.tables.first { $0.itemId == itemId }
                        }
                    }
                    if let table {
                        l.data = "\(file) › \(table.name)"
                        l.rowCount = table.rowCount
                    } else if let name = dataPath.table ?? dataPath.itemId.map({ "itemId \($0)" }) {
                        l.data = "\(file) › \(name)"
                        if dataFiles[dataEntry.name] != nil {
                            notes.append("'\(package.path)[\(entry.name)]': layer '\(l.title)' names \(name), which \(file) does not hold")
                        }
                    } else {
                        l.data = file
                    }
                } else {
                    notes.append("'\(package.path)[\(entry.name)]': layer '\(l.title)' points at \(dataPath), which is not in the package")
                }
            }
            return l
        }
        for layer in map.map.operationalLayers ?? [] {
            for (child, depth) in layer.flattened() {
                summary.layers.append(describe(child, depth: depth, basemap: false))
            }
        }
        for layer in map.map.tables ?? [] {
            summary.layers.append(describe(layer, depth: 0, basemap: false))
        }
        for layer in map.map.baseMap?.baseMapLayers ?? [] {
            summary.layers.append(describe(layer, depth: 0, basemap: true))
        }
        for bookmark in map.map.bookmarks ?? [] {
            let extent = bookmark.effectiveExtent
            summary.bookmarks.append(.init(
                name: bookmark.name ?? "(unnamed)", extent: extent?.bounds,
                wkid: extent?.spatialReference?.latestWkid ?? extent?.spatialReference?.wkid,
                scale: bookmark.viewpoint?.scale))
        }
        return summary
    }

    static func locators(in archive: ZipArchive, manifest: PackageManifest?, notes: inout [String]) -> [LocatorDescription] {
        var found: [LocatorDescription] = []
        for entry in archive.entries {
            let isEsri = entry.hasSuffix(ignoringCase: ".loc")
            // A composite (.loc.json) and its single-field participants (<folder>/locator.json).
            guard isEsri || entry.hasSuffix(ignoringCase: ".loc.json") || entry.name.hasSuffix("/locator.json") else { continue }
            let path = "\(archive.displayPath)[\(entry.name)]"
            do {
                if isEsri {
                    let xml = archive.entry(named: entry.name + ".xml").flatMap { try? archive.read($0, limit: 64 << 20) }
                    found.append(LocatorDescription.esri(try archive.read(entry, limit: 16 << 20), path: entry.name, styleXML: xml))
                } else {
                    found.append(try LocatorDescription.mapbook(try archive.read(entry, limit: 16 << 20), path: entry.name))
                }
            } catch {
                notes.append("'\(path)': \(error)")
            }
        }
        // The package's locator (a composite, or an Esri .loc) before the participants it lists.
        found = found.filter { !$0.path.hasSuffix("/locator.json") } + found.filter { $0.path.hasSuffix("/locator.json") }
        for listed in manifest?.locators ?? [] where !found.contains(where: { $0.path == listed }) {
            if archive.entry(named: listed) == nil {
                notes.append("'\(archive.displayPath)': the manifest lists locator '\(listed)', which is not in the package")
            }
        }
        return found
    }

    // MARK: - Tile packages

    static func tileSummary(_ tiles: TilePackage, entry: String?, bytes: Int64) throws -> InspectionReport.TilePackageSummary {
        let extent = tiles.fullExtent
        return .init(
            entry: entry, kind: tiles.kind.rawValue, name: tiles.name, format: tiles.format, tileSize: tiles.tileSize,
            levelsOfDetail: tiles.levelsOfDetail, levels: try tiles.levels(), fullExtent: extent?.bounds,
            wkid: extent?.spatialReference?.latestWkid ?? extent?.spatialReference?.wkid, bytes: bytes)
    }

    static func inspectTilePackage(_ tiles: TilePackage, size: Int64) -> InspectionReport {
        let archive = tiles.archive
        var report = InspectionReport(path: archive.displayPath, kind: tiles.kind.rawValue, fileSize: size)
        report.entries = archive.entries.map {
            .init(name: $0.name, size: $0.uncompressedSize, compressedSize: $0.compressedSize, method: $0.method.description)
        }
        var item = InspectionReport.ItemSummary()
        if let entry = archive.entry(named: "esriinfo/iteminfo.xml") {
            do {
                let info = try ItemInfo.parse(try archive.read(entry), path: "\(archive.displayPath)[\(entry.name)]")
                item = itemSummary(nil, info, archive: archive)
            } catch {
                report.notes.append("\(error)")
            }
        } else if let entry = archive.entry(named: "iteminfo.json"),
            let json = (try? JSONParser.parse(try archive.read(entry)))?.objectValue
        {
            // A .tpkx describes itself in JSON (github.com/Esri/tile-package-spec).
            item.title = json.string("title")
            item.name = json.string("name")
            item.guid = json.string("guid")
            item.type = json.string("type")
            item.summary = json.string("summary")
            item.snippet = json.string("snippet")
            item.tags = json.string("tags").map(PackageManifest.splitTags) ?? json.strings("tags") ?? []
            item.extent = json.model("extent").flatMap { (e: Envelope) in e.bounds }
            item.hasThumbnail = json.string("thumbnail").map { archive.entry(named: $0.hasPrefix("./") ? String($0.dropFirst(2)) : $0) != nil } ?? false
        }
        item.title = item.title ?? tiles.name
        report.item = item
        do {
            report.tilePackages = [try tileSummary(tiles, entry: nil, bytes: size)]
        } catch {
            report.notes.append("\(error)")
        }
        return report
    }

    // MARK: - Databases and caches

    static func inspectDatabase(_ path: String, size: Int64) throws -> InspectionReport {
        let database = try SQLiteDatabase(readOnlyPath: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let summary = try dataFileSummary(database, entry: name, bytes: size)
        var report = InspectionReport(path: path, kind: summary.kind, fileSize: size)
        report.dataFiles = [summary]
        return report
    }

    static func inspectBundle(_ file: RandomAccessFile) throws -> InspectionReport {
        let bundle = try CompactCacheBundle(range: ByteRange(file: file), path: file.path)
        var report = InspectionReport(path: file.path, kind: "Compact Cache bundle", fileSize: file.size)
        let parsed = CompactCacheBundle.parseName(file.path)
        var level = TilePackage.Level(level: parsed?.level ?? 0)
        level.add(CompactCacheBundle.Counts(bundle.records))
        report.tilePackages = [.init(entry: nil, kind: "Compact Cache bundle", name: nil, format: nil, tileSize: nil, levelsOfDetail: 0, levels: [level], fullExtent: nil, wkid: nil, bytes: file.size)]
        report.notes = bundle.indexProblems().map { "'\(file.path)': \($0)" }
        return report
    }

    /// A Compact Cache folder: `conf.xml` and bundles, in `_alllayers/Lnn/` or beside it.
    static func inspectCacheFolder(_ path: String) throws -> InspectionReport {
        var bundles: [(level: Int, path: String)] = []
        var totalSize: Int64 = 0
        func walk(_ dir: String, depth: Int, level: Int?) {
            guard depth < 4, let handle = opendir(dir) else { return }
            defer { closedir(handle) }
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if name == "." || name == ".." { continue }
                let child = dir + "/" + name
                var info = stat()
                guard stat(child, &info) == 0 else { continue }
                if (info.st_mode & S_IFMT) == S_IFDIR {
                    let l = name.first == "L" ? Int(name.dropFirst()) : nil
                    walk(child, depth: depth + 1, level: l ?? level)
                } else if name.hasSuffix(".bundle") {
                    let l = CompactCacheBundle.parseName(name)?.level ?? level ?? 0
                    bundles.append((l, child))
                    totalSize += Int64(info.st_size)
                }
            }
        }
        walk(path, depth: 0, level: nil)
        guard !bundles.isEmpty else {
            throw PackageFormatError(kind: .wrongFormat, path: path, message: "a folder without Compact Cache bundles (*.bundle)")
        }
        var report = InspectionReport(path: path, kind: "Compact Cache", fileSize: totalSize)
        var levels: [Int: TilePackage.Level] = [:]
        for (levelNumber, bundlePath) in bundles.sorted(by: { ($0.level, $0.path) < ($1.level, $1.path) }) {
            do {
                let file = try RandomAccessFile(path: bundlePath)
                let bundle = try CompactCacheBundle(range: ByteRange(file: file), path: bundlePath)
                levels[levelNumber, default: .init(level: levelNumber)].add(CompactCacheBundle.Counts(bundle.records))
                report.entries.append(.init(name: String(bundlePath.dropFirst(path.count + 1)), size: file.size, compressedSize: file.size, method: "file"))
                report.notes += bundle.indexProblems().map { "'\(bundlePath)': \($0)" }
            } catch {
                report.notes.append("\(error)")
            }
        }
        var format: String?
        var tileSize: Int?
        if let conf = try? RandomAccessFile(path: path + "/conf.xml"), let bytes = try? ByteRange(file: conf).readAll(),
            let root = try? XMLDocumentIO.parse(bytes, path: conf.path)
        {
            let cacheInfo = root.child("TileCacheInfo")
            tileSize = cacheInfo?.child("TileCols").flatMap { Int($0.text) }
            format = root.child("TileImageInfo")?.child("CacheTileFormat")?.text
        }
        report.tilePackages = [.init(entry: nil, kind: "Compact Cache", name: nil, format: format, tileSize: tileSize, levelsOfDetail: levels.count, levels: levels.keys.sorted().map { levels[$0]! }, fullExtent: nil, wkid: nil, bytes: totalSize)]
        return report
    }
}

extension InspectionReport.ItemSummary {
    /// Whether a field `iteminfo.xml` could give is missing (the thumbnail's path included).
    var lacksWhatItemInfoHolds: Bool {
        let texts = [title, name, snippet, summary, description, guid, version, type, spatialReference, credits, useLimitations]
        return texts.contains { $0 == nil } || created == nil || modified == nil || tags.isEmpty || extent == nil || !hasThumbnail
    }
}
