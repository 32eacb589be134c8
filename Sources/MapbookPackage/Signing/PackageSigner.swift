#if canImport(Glibc)
import Glibc
#endif
import MapbookSupport

/// Signs packages: checks every entry against the manifest (a package damaged or changed
/// since it was made is refused, never signed), then adds the signature entry after the
/// manifest, keeping every other byte of the package (docs/FORMAT.md "Signature").
///
/// Signing a signed package replaces its signatures with those of the keys given: pass the
/// old key and the new one while moving to a new key.
public enum PackageSigner {
    /// Signs the package at `path` with `keys`, in order, writing the result to `output`
    /// (by default over `path`) through a temporary file renamed when complete.
    public static func sign(_ path: String, keys: [SigningKey], output: String? = nil) throws -> [PublicSigningKey] {
        let destination = output ?? path
        let package = try MobileMapPackage(path: path)
        try package.verifyEntries()
        let file = try AtomicFile(destination: destination)
        let cut = try cutOffset(package)
        try copy(package.archive.range.slice(offset: 0, length: cut), to: file)
        try appendSignature(package, keys: keys, to: file.descriptor, path: file.temporaryPath)
        try check(file.temporaryPath)
        try file.commit()
        return keys.map(\.publicKey)
    }

    /// Signs a package just written to `path` (open for writing as `descriptor`), in place:
    /// what `PackageWriter` does before renaming the package into place.
    static func signWritten(_ path: String, descriptor: Int32, keys: [SigningKey]) throws {
        let package = try MobileMapPackage(path: path)
        _ = try cutOffset(package)
        try appendSignature(package, keys: keys, to: descriptor, path: path)
        try check(path)
    }

    /// Where the signature entry goes: over the old one, which must be the last entry, else
    /// where the central directory begins.
    static func cutOffset(_ package: MobileMapPackage) throws(SignatureError) -> Int64 {
        let archive = package.archive
        guard !archive.isFolder, archive.prefixLength == 0 else {
            throw SignatureError(kind: .layout, path: package.path, message: "only a package file that starts with its first entry can be signed (this one is a folder or has bytes before its archive)")
        }
        guard let old = archive.entries.first(where: { PackageSignature.isSignatureEntry($0.name) }) else { return archive.centralDirectoryOffset }
        guard !archive.entries.contains(where: { $0.localHeaderOffset > old.localHeaderOffset }) else {
            throw SignatureError(kind: .layout, path: package.path, message: "its signature entry '\(old.name)' is not the last entry (the package was changed by another tool): build it again and sign that")
        }
        return old.localHeaderOffset
    }

    static func appendSignature(_ package: MobileMapPackage, keys: [SigningKey], to descriptor: Int32, path: String) throws {
        guard !keys.isEmpty else { throw SignatureError(kind: .invalidKey, path: path, message: "no key to sign with") }
        let manifestBytes = try package.bytes(of: package.manifestEntry)
        let signature = try PackageSignature(manifest: package.manifestEntry.name, manifestBytes: manifestBytes, keys: keys)
        let old = package.archive.entries.first { PackageSignature.isSignatureEntry($0.name) }
        try ZipAppender.append(
            name: PackageSignature.entryName(manifest: package.manifestEntry.name), bytes: signature.bytes, replacing: old,
            like: package.manifestEntry, in: package.archive, output: descriptor, outputPath: path)
    }

    /// The signed file opens and its signature verifies.
    static func check(_ path: String) throws {
        let signed = try MobileMapPackage(path: path)
        guard signed.signature.isSigned else {
            throw SignatureError(kind: .badSignature, path: path, message: "the signed package does not read back as signed")
        }
    }

    /// Copies `range` to the start of `file`, 4 MiB at a time.
    static func copy(_ range: ByteRange, to file: AtomicFile) throws {
        try range.forEachChunk(chunkSize: 4 << 20) { chunk in try file.write(chunk) }
    }
}
