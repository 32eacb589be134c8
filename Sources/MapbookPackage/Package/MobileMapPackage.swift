import MapbookSupport

/// A mobile map package (`.mmpk`) opened for reading: ours or Esri's.
///
/// Opening reads the ZIP central directory and the `.info` manifest, nothing else; maps, item
/// descriptions and data files are read when asked for, in place (DESIGN.md section 5).
public final class MobileMapPackage: Sendable {
    public let archive: ZipArchive
    /// The root `.info` entry.
    public let manifestEntry: ZipEntry
    public let manifest: PackageManifest
    /// The folder holding maps and data (`p20` for ours, `p12`, `p13`, `p14`... for Esri's).
    public let folder: String?
    /// The signature entry's verdict on the manifest (docs/FORMAT.md "Signature"). The entries
    /// themselves are checked against the manifest by `verifyEntries()`, which reads them all.
    public let signature: SignatureState
    /// The manifest's bytes, as read.
    public let manifestBytes: [UInt8]
    /// The manifest's bytes' SHA-256: what a signature covers, and how a verified file is known.
    /// Computed when asked for: an unsigned package's `inspect` needs none (issue 36).
    public var manifestSHA256: String { SHA256Digest.hex(of: manifestBytes) }

    public var path: String { archive.displayPath }

    /// Opens the package file at `path`.
    public convenience init(path: String) throws {
        try self.init(archive: try ZipArchive(path: path))
    }

    /// Reads the manifest of an opened archive and checks its signature: a package whose
    /// signature is malformed, doubled, of another manifest or does not verify is refused
    /// (`.signature`), unless `refusingBadSignature` is false (`validate` reports it instead).
    public init(archive: ZipArchive, refusingBadSignature: Bool = true) throws(PackageFormatError) {
        self.archive = archive
        guard let entry = Self.findManifest(in: archive) else {
            throw PackageFormatError(kind: .wrongFormat, path: archive.displayPath, message: "no .info manifest at the root of the archive: not a mobile map package")
        }
        manifestEntry = entry
        let bytes: [UInt8]
        do {
            bytes = try archive.read(entry, limit: 512 << 20)
        } catch {
            throw PackageFormatError(kind: .archive(error.kind), path: "\(archive.displayPath)[\(entry.name)]", message: "\(error)")
        }
        manifest = try PackageManifest.parse(bytes, path: "\(archive.displayPath)[\(entry.name)]")
        folder = Self.findFolder(in: archive, manifest: manifest)
        manifestBytes = bytes
        signature = SignatureState.of(archive, manifestEntry: entry, manifestBytes: bytes)
        if refusingBadSignature, case .invalid(let error) = signature {
            throw PackageFormatError(kind: .signature(error.kind), path: error.path, message: error.message + "; the package is refused")
        }
    }

    /// The root `.info` entry, preferring the one named after the package file.
    package static func findManifest(in archive: ZipArchive) -> ZipEntry? {
        let candidates = archive.entries.filter { !$0.name.contains("/") && $0.name.hasSuffix(".info") }
        guard candidates.count > 1 else { return candidates.first }
        let file = archive.displayPath.split(separator: "/").last.map(String.init) ?? ""
        let stem = file.split(separator: ".").dropLast().joined(separator: ".")
        return candidates.first { $0.name == stem + ".info" } ?? candidates.first
    }

    /// The `pNN` folder: from the manifest, else the folder of the first map, else any `pNN/`.
    static func findFolder(in archive: ZipArchive, manifest: PackageManifest?) -> String? {
        if let folder = manifest?.mapbook?.folder, !folder.isEmpty { return folder }
        func pFolder(_ name: String) -> String? {
            guard let slash = name.firstIndex(of: "/") else { return nil }
            let first = name[..<slash]
            guard first.first == "p", first.count > 1, first.dropFirst().allSatisfy(\.isNumber) else { return nil }
            return String(first)
        }
        if let map = archive.entries.first(where: { $0.name.hasSuffix(".mmap") }), let f = pFolder(map.name) { return f }
        return archive.entries.lazy.compactMap { pFolder($0.name) }.first
    }

    /// The map entries: those the manifest lists, in its order, then any other `.mmap` found.
    /// The package's `data.gpkg` (the imported sources, and what field edits change), if any.
    public var dataEntry: ZipEntry? {
        archive.entries.first { $0.name.hasSuffix("/data.gpkg") || $0.name == "data.gpkg" }
    }

    public var mapEntries: [ZipEntry] {
        var found: [ZipEntry] = []
        var seen = Set<String>()
        for name in manifest.maps ?? [] {
            var candidates = [name, name + ".mmap"]
            if let folder { candidates = ["\(folder)/\(name).mmap", "\(folder)/\(name)"] + candidates }
            if let entry = candidates.lazy.compactMap({ self.archive.entry(named: $0) }).first, seen.insert(entry.name).inserted {
                found.append(entry)
            }
        }
        for entry in archive.entries where entry.name.hasSuffix(".mmap") && seen.insert(entry.name).inserted {
            found.append(entry)
        }
        return found
    }

    /// Manifest map names that match no `.mmap` entry.
    public var unresolvedMapNames: [String] {
        (manifest.maps ?? []).filter { name in
            var candidates = [name, name + ".mmap"]
            if let folder { candidates += ["\(folder)/\(name).mmap", "\(folder)/\(name)"] }
            return !candidates.contains { archive.entry(named: $0) != nil }
        }
    }

    /// Reads and parses one `.mmap`.
    public func map(_ entry: ZipEntry) throws(PackageFormatError) -> MobileMap {
        try MobileMap.parse(try bytes(of: entry, limit: 256 << 20), path: "\(path)[\(entry.name)]")
    }

    /// The entry's bytes, refusing more than `limit`.
    public func bytes(of entry: ZipEntry, limit: Int64 = 256 << 20) throws(PackageFormatError) -> [UInt8] {
        do {
            return try archive.read(entry, limit: limit)
        } catch {
            throw PackageFormatError(kind: .archive(error.kind), path: "\(path)[\(entry.name)]", message: error.message)
        }
    }

    /// `esriinfo/iteminfo.xml`, when present.
    public func itemInfo() throws(PackageFormatError) -> ItemInfo? {
        guard let entry = archive.entry(named: "esriinfo/iteminfo.xml") else { return nil }
        return try ItemInfo.parse(try bytes(of: entry), path: "\(path)[\(entry.name)]")
    }

    /// `esriinfo/item.pkinfo`, when present.
    public func packageInfo() throws(PackageFormatError) -> PackageInfo? {
        guard let entry = archive.entry(named: "esriinfo/item.pkinfo") else { return nil }
        return try PackageInfo.parse(try bytes(of: entry), path: "\(path)[\(entry.name)]")
    }

    /// The entry a map's layer path names, resolved against the map's folder.
    public func entry(for dataPath: LayerDataPath, mapEntry: ZipEntry) -> ZipEntry? {
        archive.entry(named: dataPath.entryName(relativeTo: LayerDataPath.folder(of: mapEntry.name)))
    }

    /// Opens a SQLite database entry (GeoPackage, geodatabase, locator index) in place.
    public func database(_ entry: ZipEntry) throws -> SQLiteDatabase {
        try SQLiteDatabase(range: try archive.dataRange(of: entry), displayPath: "\(path)[\(entry.name)]")
    }

    /// Opens a nested tile package entry (`.vtpk`, `.tpkx`) in place.
    public func tilePackage(_ entry: ZipEntry) throws -> TilePackage {
        let nested = try ZipArchive(range: try archive.dataRange(of: entry), displayPath: "\(path)[\(entry.name)]")
        return try TilePackage(archive: nested)
    }
}
