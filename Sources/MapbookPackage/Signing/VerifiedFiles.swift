#if canImport(Glibc)
import Glibc
#endif
import MapbookSupport

extension MobileMapPackage {
    /// Reads every entry once and checks it against the size and SHA-256 the manifest
    /// records; an entry the manifest does not list (other than the manifest and the signature
    /// entry) fails too, as nothing vouches for it.
    ///
    /// What makes a signature over the manifest a signature over the whole package.
    public func verifyEntries() throws(SignatureError) {
        guard let digests = manifest.mapbook?.entries else {
            throw SignatureError(kind: .noDigests, path: path, message: "the manifest records no entry digests (a package made by ArcGIS?): its entries cannot be checked")
        }
        var problems: [String] = []
        for entry in archive.entries where !(entry.isDirectory && entry.uncompressedSize == 0) {
            if entry.name == manifestEntry.name || PackageSignature.isSignatureEntry(entry.name) { continue }
            guard let expected = digests[entry.name] else {
                problems.append("'\(entry.name)' is not listed in the manifest")
                continue
            }
            var sha = SHA256Digest()
            var count: Int64 = 0
            do {
                try archive.stream(entry, limit: .max) { chunk in
                    sha.update(chunk)
                    count += Int64(chunk.count)
                }
            } catch {
                problems.append("'\(entry.name)' cannot be read (\(error))")
                continue
            }
            if count != expected.size || sha.finalizeHex() != expected.sha256?.lowercased() {
                problems.append("'\(entry.name)' differs from the manifest's size and SHA-256")
            }
        }
        for name in digests.keys.sorted() where archive.entry(named: name) == nil {
            problems.append("'\(name)' is listed in the manifest but missing")
        }
        guard problems.isEmpty else {
            let shown = problems.prefix(3).joined(separator: "; ") + (problems.count > 3 ? "; and \(problems.count - 3) more" : "")
            throw SignatureError(kind: .entryMismatch, path: path, message: "\(shown): the package was changed after it was made")
        }
    }
}

/// Signed package files whose entries were checked against their signed manifests,
/// remembered by the file's identity (device, inode, size, modification and change times) and
/// manifest, so that opening the same unchanged file again costs one `stat`.
///
/// A change to the file changes its change time, which no user can set back: a file changed
/// after its check is checked again.
public struct VerifiedFiles: Sendable {
    /// Where the records are kept; nil keeps none (every open reads the package).
    public let folder: String?

    public init(folder: String?) {
        self.folder = folder
    }

    /// Opens a package for a user to view or use: a bad signature is refused (as
    /// `MobileMapPackage` refuses it), and the first time a signed file is opened every entry is
    /// checked against the signed manifest, so a package changed after signing is refused
    /// wherever it is opened. An unsigned package opens as before: nothing vouches for it.
    public func open(_ path: String) throws -> MobileMapPackage {
        let package = try MobileMapPackage(path: path)
        guard package.signature.isSigned else { return package }
        let manifest = package.manifestSHA256
        let before = Self.identity(path, manifest: manifest)
        if let before, let record = recordPath(path), Self.read(record) == before { return package }
        do {
            try package.verifyEntries()
        } catch {
            throw PackageFormatError(kind: .signature(error.kind), path: error.path, message: error.message + "; the package is refused")
        }
        if let before, Self.identity(path, manifest: manifest) == before { remember(path, identity: before) }
        return package
    }

    /// Records that `path`, as it is now, was checked (after a download or update checked it).
    public func remember(_ package: MobileMapPackage) {
        if let identity = Self.identity(package.path, manifest: package.manifestSHA256) { remember(package.path, identity: identity) }
    }

    func remember(_ path: String, identity: String) {
        guard let folder, let record = recordPath(path) else { return }
        if FileSystem.kind(folder) == nil { _ = FileSystem.makeDirectory(folder, mode: 0o700) }
        try? AtomicFile.write(Array(identity.utf8), to: record)
    }

    func recordPath(_ path: String) -> String? {
        guard let folder, let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return folder + "/" + SHA256Digest.hex(of: Array(String(cString: real).utf8))
    }

    static func read(_ record: String) -> String? {
        guard let file = try? RandomAccessFile(path: record), file.size < 4096, let bytes = try? file.read(at: 0, count: Int(file.size)) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The file's identity and its manifest's hash, as one line.
    ///
    /// The corresponding C function is `stat`.
    static func identity(_ path: String, manifest: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return [
            UInt64(info.st_dev), UInt64(info.st_ino), UInt64(info.st_size),
            UInt64(info.st_mtim.tv_sec), UInt64(info.st_mtim.tv_nsec), UInt64(info.st_ctim.tv_sec), UInt64(info.st_ctim.tv_nsec),
        ].map(String.init).joined(separator: " ") + " " + manifest
    }
}
