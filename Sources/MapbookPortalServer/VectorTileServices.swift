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
    private let open = Mutex<[String: BackdropFiles]>([:])

    /// The backdrop of the package file at `path` (version `key`); nil when it has none.
    func backdrop(key: String, path: String) throws -> BackdropFiles? {
        if let found = open.withLock({ $0[key] }) { return found }
        let package = try MobileMapPackage(path: path)
        guard let entry = VectorTilePackageReader.vectorTilePackageEntries(in: package).first else { return nil }
        let files = try BackdropFiles(package: try package.tilePackage(entry))
        return open.withLock { open in
            if let raced = open[key] { return raced }
            open[key] = files
            return files
        }
    }
}
