import MapbookPackage
import MapbookSupport
import MapbookTiles
import MapbookWeb
import Synchronization

/// Stored packages opened in place, once per version and kept: the file itself on disk, or its
/// bytes in the bucket by ranged reads (`S3RemoteBytes`); nothing is extracted or copied. The
/// vector tile services read their backdrops from them (issue 33), the item pages their
/// summaries and map previews (issue 34).
final class OpenPackages: Sendable {
    /// One version of one package, and what has been read of it so far.
    final class Opened: Sendable {
        let id: String
        let version: String
        let package: MobileMapPackage
        private let backdropFiles = Mutex<BackdropFiles??>(nil)
        private let host = Mutex<PackageHost?>(nil)

        init(id: String, version: String, package: MobileMapPackage) {
            self.id = id
            self.version = version
            self.package = package
        }

        /// The package's first vector tile package (the vector tile service's backdrop); nil
        /// when it has none.
        func backdrop() throws -> BackdropFiles? {
            if let kept = backdropFiles.withLock({ $0 }) { return kept }
            let files = try VectorTilePackageReader.vectorTilePackageEntries(in: package).first.map { try BackdropFiles(package: try package.tilePackage($0)) }
            backdropFiles.withLock { $0 = .some(files) }
            return files
        }

        /// The package's maps as `mapbook serve` draws them (the item page's preview).
        func maps() throws -> PackageHost {
            if let kept = host.withLock({ $0 }) { return kept }
            let opened = try PackageHost(key: id, package: package)
            return host.withLock { host in
                if let raced = host { return raced }
                host = opened
                return opened
            }
        }
    }

    /// By package id: the version open. Opening a new version lets the old one go (and with it
    /// the file it held open).
    private let open = Mutex<[String: Opened]>([:])
    /// The most packages kept open at once.
    static let capacity = 32

    /// Package `id` at `version` if it is open.
    func kept(id: String, version: String) -> Opened? {
        open.withLock { $0[id] }.flatMap { $0.version == version ? $0 : nil }
    }

    /// Package `id` at `version`, opened by `opening` unless it is open.
    func open(id: String, version: String, _ opening: () throws -> MobileMapPackage) throws -> Opened {
        if let found = kept(id: id, version: version) { return found }
        let opened = Opened(id: id, version: version, package: try opening())
        return open.withLock { open in
            if let raced = open[id], raced.version == version { return raced }
            if open.count >= Self.capacity, open[id] == nil, let any = open.keys.first { open[any] = nil }
            open[id] = opened
            return opened
        }
    }

    /// Lets package `id` go (it was deleted).
    func forget(_ id: String) {
        _ = open.withLock { $0.removeValue(forKey: id) }
    }
}
