import MapbookSupport

/// Writes a new version of a package with some of its entries replaced: every other entry
/// copied as it is (inflated when a foreign tool deflated it), in the same order, and the
/// manifest's list of entries with their sizes and SHA-256 made again (DESIGN.md 3.6).
///
/// What `mapbook portal publish --from-sync` uses to put the portal's synchronised data into a
/// package without building it again from its sources. Written like `PackageWriter`: to a
/// temporary file beside `path`, renamed when complete.
public enum PackageRewriter {
    /// `replacing` maps full entry names (`p20/data.gpkg`) to their new bytes; each must name
    /// an entry of the package.
    public static func write(
        _ package: MobileMapPackage, replacing: [String: PackageContents.File.Source], timestamp: Int64, to path: String
    ) throws -> PackageWriteSummary {
        for name in replacing.keys where package.archive.entry(named: name) == nil {
            throw ArchiveError(kind: .missingEntry, operation: "rewrite", path: package.path, message: "has no entry '\(name)' to replace")
        }
        let output = try AtomicFile(destination: path)
        let zip = try ZipWriter(descriptor: output.descriptor, path: path)
        var digests: [(String, EntryDigest)] = []
        var written: [(name: String, size: Int64)] = []
        // The old signature signs the old manifest: a rewritten package is signed again, or not.
        for entry in package.archive.entries
        where entry.name != package.manifestEntry.name && !entry.name.hasSuffix("/") && !PackageSignature.isSignatureEntry(entry.name) {
            var sha = SHA256Digest()
            let size: Int64
            switch replacing[entry.name] {
            case .bytes(let bytes)?:
                size = Int64(bytes.count)
                try zip.beginEntry(name: entry.name, size: size, modificationTime: timestamp)
                sha.update(bytes)
                try zip.write(bytes)
            case .range(let range)?:
                size = range.length
                try zip.beginEntry(name: entry.name, size: size, modificationTime: timestamp)
                try range.forEachChunk { chunk in
                    sha.update(chunk)
                    try zip.write(chunk)
                }
            case .file(let source)?:
                let range = ByteRange(file: try RandomAccessFile(path: source))
                size = range.length
                try zip.beginEntry(name: entry.name, size: size, modificationTime: timestamp)
                try range.forEachChunk { chunk in
                    sha.update(chunk)
                    try zip.write(chunk)
                }
            case nil:
                size = entry.uncompressedSize
                try zip.beginEntry(name: entry.name, size: size, modificationTime: timestamp)
                try package.archive.stream(entry, limit: .max) { chunk in
                    sha.update(chunk)
                    try zip.write(chunk)
                }
            }
            digests.append((entry.name, EntryDigest(size: size, sha256: sha.finalizeHex())))
            written.append((entry.name, size))
        }
        var manifest = package.manifest
        let old = manifest.mapbook
        manifest.mapbook = MapbookSection(folder: old?.folder ?? package.folder ?? "p20", generator: old?.generator ?? "mapbook", entries: digests)
        let manifestBytes = JSONWriter.bytes(manifest.jsonValue)
        try zip.beginEntry(name: package.manifestEntry.name, size: Int64(manifestBytes.count), modificationTime: timestamp)
        try zip.write(manifestBytes)
        written.append((package.manifestEntry.name, Int64(manifestBytes.count)))
        try zip.close()
        try output.commit()
        return PackageWriteSummary(path: path, entries: written, fileSize: (try? RandomAccessFile(path: path).size) ?? 0)
    }
}
