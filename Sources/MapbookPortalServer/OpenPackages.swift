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
        /// The item's `modified` when this version was read: a later record has a larger one.
        let modified: Int64
        let package: MobileMapPackage
        private let backdropFiles = Mutex<BackdropFiles??>(nil)
        private let host = Mutex<PackageHost?>(nil)

        init(id: String, version: String, modified: Int64, package: MobileMapPackage) {
            self.id = id
            self.version = version
            self.modified = modified
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

    /// Package `id` at `version`, as of the item's `modified`, opened by `opening` unless it
    /// is open. A request that read the item before a newer version was published gets the
    /// version it asked for, but never replaces the newer one kept.
    func open(id: String, version: String, modified: Int64, _ opening: () throws -> MobileMapPackage) throws -> Opened {
        if let found = kept(id: id, version: version) { return found }
        let opened = Opened(id: id, version: version, modified: modified, package: try opening())
        return open.withLock { open in
            if let raced = open[id] {
                if raced.version == version { return raced }
                if raced.modified > modified { return opened }
            }
            if open.count >= Self.capacity, open[id] == nil, let any = open.keys.first { open[any] = nil }
            open[id] = opened
            return opened
        }
    }

    /// Lets package `id` go (it was deleted), or only its `version` when given (the item no
    /// longer has it).
    func forget(_ id: String, version: String? = nil) {
        open.withLock { open in
            if version == nil || open[id]?.version == version { open[id] = nil }
        }
    }
}
