import MapbookLibrary
import MapbookPackage
import MapbookSupport
import Synchronization

/// The packages a web server shows: the device library's (read again on every listing, so a
/// package downloaded while the server runs appears) and the files named when it started.
/// Each has a key for its URLs: its GUID, else its file name; a second package with the same
/// key gets `-2`, `-3`.
public final class WebCatalog: Sendable {
    /// One package as the library page lists it.
    public struct Listing: Sendable {
        public var key: String
        public var path: String
        public var title: String
        public var summary: String
        public var size: Int64
        public var maps: [String]
        public var expiration: Expiration?
        public var hasThumbnail: Bool
        /// Why it cannot be opened (unreadable, or expired with `preventExpiredAccess`).
        public var problem: String?
        /// From the device library's last update check: the portal has a newer version.
        public var updateAvailable: Bool
        /// The portal's administrator requires a later version than this one (issue 34).
        public var updateRequired = false
        public var libraryEntry: LibraryEntry?
    }

    public let library: DeviceLibrary?
    public let paths: [String]
    /// Synchronising downloaded packages with the portal, when the server can.
    public let sync: WebSync?
    private let hosts = Mutex<[String: PackageHost]>([:])

    public init(library: DeviceLibrary?, paths: [String], sync: WebSync? = nil) {
        self.library = library
        self.paths = paths
        self.sync = sync
    }

    /// Every package, library first, then the named files.
    public func listings() -> [Listing] {
        var entries: [(path: String, entry: LibraryEntry?)] = []
        if let library, let listed = try? library.list() {
            entries = listed.map { ($0.path, $0) }
        }
        for path in paths where !entries.contains(where: { $0.path == path }) { entries.append((path, nil)) }
        let lastCheck = try? library?.lastUpdateCheck()
        var used: Set<String> = []
        return entries.map { path, entry in
            var listing = Listing(
                key: "", path: path, title: entry?.title ?? FileSystem.lastComponent(path), summary: "", size: entry?.size ?? FileSystem.size(path) ?? 0,
                maps: [], expiration: nil, hasThumbnail: false, problem: entry?.problem, updateAvailable: false, libraryEntry: entry)
            var key = FileSystem.lastComponent(path)
            do {
                let package = try (library ?? DeviceLibrary.fromEnvironment()).verifiedFiles.open(path)
                let manifest = package.manifest
                key = manifest.guid ?? key
                listing.title = manifest.title ?? listing.title
                listing.summary = HTMLText.plain(manifest.summary ?? manifest.description ?? "", collapsing: true)
                listing.maps = package.mapEntries.compactMap { try? package.map($0).displayName }
                listing.expiration = manifest.expiration
                listing.hasThumbnail = manifest.thumbnail.flatMap(DataURI.decode) != nil
                // Past its date with preventExpiredAccess: listed, with its message, not opened.
                do { _ = try package.expirationNotice() } catch { listing.problem = "\(error)" }
            } catch {
                listing.problem = listing.problem ?? "\(error)"
            }
            if let id = entry?.itemId, UpdateCheck.isUpdate(lastCheck?.findings[id]) {
                listing.updateAvailable = true
                listing.updateRequired = lastCheck?.findings[id] == .updateRequired
            }
            var unique = Self.slug(key), n = 2
            while used.contains(unique) {
                unique = Self.slug(key) + "-\(n)"
                n += 1
            }
            used.insert(unique)
            listing.key = unique
            return listing
        }
    }

    /// The open package with this key: opened on first use and kept.
    func host(_ key: String) throws(WebError) -> PackageHost {
        if let open = hosts.withLock({ $0[key] }) { return open }
        guard let listing = listings().first(where: { $0.key == key }) else { throw .notFound("no package '\(key)' is served here") }
        if let problem = listing.problem { throw WebError(status: .forbidden, kind: "unavailable", message: "'\(listing.title)' cannot be opened: \(problem)") }
        let host: PackageHost
        do {
            host = try PackageHost(key: key, path: listing.path, library: library)
        } catch {
            throw WebError.from(error)
        }
        return hosts.withLock { hosts in
            if let raced = hosts[key] { return raced }
            hosts[key] = host
            return host
        }
    }

    /// Closes the package with this key, if open: its file was replaced (an update), and the
    /// next request opens the new one.
    func forget(_ key: String) {
        _ = hosts.withLock { $0.removeValue(forKey: key) }
    }

    /// Letters, digits, `-`, `_` and `.`; anything else becomes `-`.
    static func slug(_ text: String) -> String {
        let kept = text.unicodeScalars.map { s -> Character in
            (s.isASCII && (s.properties.isAlphabetic || ("0"..."9").contains(s) || s == "-" || s == "_" || s == ".")) ? Character(s) : "-"
        }
        let slug = String(kept).trimming("-{}")
        return slug.isEmpty ? "package" : slug
    }
}
