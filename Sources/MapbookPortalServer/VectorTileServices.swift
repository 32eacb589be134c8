#if canImport(Glibc)
import Glibc
#endif
import MapbookPackage
import MapbookSupport
import MapbookTiles
import Synchronization

/// The backdrops the portal's vector tile services read (issue 33), opened once per package
/// version and kept: the `.vtpk` stored in the package, read in place (its bundles by offset,
/// nothing extracted).
final class VectorTileServices: Sendable {
    /// By package id: the version open and its backdrop. Opening a new version lets the old
    /// one go (and with it the file it held open).
    private let open = Mutex<[String: (version: String, files: BackdropFiles)]>([:])
    /// The most packages kept open at once.
    static let capacity = 32

    /// The backdrop of package `id` at `version`, whose file is at `path`; nil when it has none.
    func backdrop(id: String, version: String, path: String) throws -> BackdropFiles? {
        if let found = open.withLock({ $0[id] }), found.version == version { return found.files }
        let package = try MobileMapPackage(path: path)
        guard let entry = VectorTilePackageReader.vectorTilePackageEntries(in: package).first else { return nil }
        let files = try BackdropFiles(package: try package.tilePackage(entry))
        return open.withLock { open in
            if let raced = open[id], raced.version == version { return raced.files }
            if open.count >= Self.capacity, open[id] == nil, let any = open.keys.first { open[any] = nil }
            open[id] = (version, files)
            return files
        }
    }

    /// Lets package `id`'s backdrop go (the package was deleted).
    func forget(_ id: String) {
        _ = open.withLock { $0.removeValue(forKey: id) }
    }
}
