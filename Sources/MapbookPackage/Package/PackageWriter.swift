import MapbookSupport

/// Everything that goes into a package, ready to write.
public struct PackageContents: Sendable {
    /// One data file of the package folder (a GeoPackage, a tile package, a locator index).
    public struct File: Sendable {
        public enum Source: Sendable {
            case file(path: String)
            case bytes([UInt8])
            case range(ByteRange)
        }

        /// The path inside the package folder (`data.gpkg`, `locators/Trees/index.sqlite`).
        public var path: String
        public var source: Source

        public init(path: String, source: Source) {
            self.path = path
            self.source = source
        }
    }

    /// The package name: the manifest is `<name>.info`.
    public var name: String
    /// The folder holding maps and data.
    public var folder: String = "p20"
    /// The manifest's item keys; `maps` and `mapbook` are filled in by the writer.
    public var manifest: PackageManifest
    public var itemInfo: ItemInfo
    public var packageInfo: PackageInfo
    /// PNG or JPEG bytes for `esriinfo/thumbnail/`.
    public var thumbnail: [UInt8]?
    /// Maps in order, each written as `<folder>/<fileName>.mmap`.
    public var maps: [(fileName: String, map: MobileMap)]
    public var files: [File]
    /// Modification time of every entry, Unix seconds.
    public var timestamp: Int64
    public var generator: String

    public init(
        name: String, manifest: PackageManifest, itemInfo: ItemInfo, packageInfo: PackageInfo,
        thumbnail: [UInt8]?, maps: [(fileName: String, map: MobileMap)], files: [File],
        timestamp: Int64, generator: String
    ) {
        self.name = name
        self.manifest = manifest
        self.itemInfo = itemInfo
        self.packageInfo = packageInfo
        self.thumbnail = thumbnail
        self.maps = maps
        self.files = files
        self.timestamp = timestamp
        self.generator = generator
    }

    /// The thumbnail's entry name, from its image kind.
    public var thumbnailEntry: String? {
        guard let thumbnail else { return nil }
        return "esriinfo/thumbnail/thumbnail." + (ImageKind(thumbnail) == .jpeg ? "jpg" : "png")
    }
}

/// What `PackageWriter` wrote.
public struct PackageWriteSummary: Sendable {
    public var path: String
    public var entries: [(name: String, size: Int64)]
    public var fileSize: Int64
}

/// Writes a `.mmpk`: every entry stored, in a fixed order, the manifest last with the size and
/// SHA-256 of every other entry (DESIGN.md 3, 3.1, 3.6).
///
/// The archive is built in a temporary file beside `path`, fsynced and renamed; on any error
/// nothing is left under `path` or beside it. Each entry is read from its source once.
public enum PackageWriter {
    /// `check` sees the finished archive under its temporary name before it is renamed into
    /// place; an error it throws leaves nothing behind, and `path` untouched. With
    /// `signingKeys`, the package is signed by each (`PackageSigner`) before `check` sees it.
    public static func write(
        _ contents: PackageContents, to path: String, signingKeys: [SigningKey] = [], check: ((String) throws -> Void)? = nil
    ) throws -> PackageWriteSummary {
        let output = try AtomicFile(destination: path)
        let zip = try ZipWriter(descriptor: output.descriptor, path: path)
        var digests: [(String, EntryDigest)] = []
        var written: [(name: String, size: Int64)] = []

        func add(_ name: String, bytes: [UInt8]) throws {
            try zip.beginEntry(name: name, size: Int64(bytes.count), modificationTime: contents.timestamp)
            try zip.write(bytes)
            digests.append((name, EntryDigest(size: Int64(bytes.count), sha256: SHA256Digest.hex(of: bytes))))
            written.append((name, Int64(bytes.count)))
        }

        func add(_ name: String, range: ByteRange) throws {
            try zip.beginEntry(name: name, size: range.length, modificationTime: contents.timestamp)
            var sha = SHA256Digest()
            try range.forEachChunk { chunk in
                sha.update(chunk)
                try zip.write(chunk)
            }
            digests.append((name, EntryDigest(size: range.length, sha256: sha.finalizeHex())))
            written.append((name, range.length))
        }

        var seen = Set<String>()
        func checkName(_ name: String) throws {
            if let problem = EntryName.problem(name) {
                throw ArchiveError(kind: .unsafeName, operation: "write", path: path, message: "entry '\(name)': \(problem)")
            }
            guard seen.insert(name).inserted else {
                throw ArchiveError(kind: .duplicateName, operation: "write", path: path, message: "two entries are named '\(name)'")
            }
        }

        try add("esriinfo/item.pkinfo", bytes: contents.packageInfo.serialized())
        try add("esriinfo/iteminfo.xml", bytes: contents.itemInfo.serialized())
        if let thumbnail = contents.thumbnail, let name = contents.thumbnailEntry {
            try add(name, bytes: thumbnail)
        }
        seen.formUnion(written.map(\.name))
        for (fileName, map) in contents.maps {
            let name = "\(contents.folder)/\(fileName).mmap"
            try checkName(name)
            try add(name, bytes: JSONWriter.bytes(map.jsonValue))
        }
        for file in contents.files {
            let name = "\(contents.folder)/\(file.path)"
            try checkName(name)
            switch file.source {
            case .bytes(let bytes):
                try add(name, bytes: bytes)
            case .range(let range):
                try add(name, range: range)
            case .file(let source):
                let handle = try RandomAccessFile(path: source)
                try add(name, range: ByteRange(file: handle))
            }
        }

        var manifest = contents.manifest
        manifest.maps = contents.maps.map(\.fileName)
        manifest.mapbook = MapbookSection(folder: contents.folder, generator: contents.generator, entries: digests)
        let manifestName = "\(contents.name).info"
        try checkName(manifestName)
        let manifestBytes = JSONWriter.bytes(manifest.jsonValue)
        try zip.beginEntry(name: manifestName, size: Int64(manifestBytes.count), modificationTime: contents.timestamp)
        try zip.write(manifestBytes)
        written.append((manifestName, Int64(manifestBytes.count)))

        try zip.close()
        if !signingKeys.isEmpty {
            try PackageSigner.signWritten(output.temporaryPath, descriptor: output.descriptor, keys: signingKeys)
            let signature = try MobileMapPackage(path: output.temporaryPath).archive.entries.last!
            written.append((signature.name, signature.uncompressedSize))
        }
        try check?(output.temporaryPath)
        try output.commit()
        let size = (try? RandomAccessFile(path: path).size) ?? 0
        return PackageWriteSummary(path: path, entries: written, fileSize: size)
    }
}
