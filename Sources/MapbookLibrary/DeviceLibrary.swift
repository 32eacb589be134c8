import MapbookPackage
import MapbookSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The packages on this device: sideloaded ones (device mode) and ones downloaded from a
/// portal (portal mode), the mode, and the signed-in user's credential (DESIGN.md section 7;
/// the layout is in docs/LIBRARY.md).
///
/// Every operation takes an exclusive `flock` on `<root>/.lock`, so two `mapbook` processes
/// sharing a library never see each other's half-done work; the lock is not reentrant, so no
/// public method calls another. Every file is written to a temporary name and renamed: a
/// crash leaves the old file or the new one, and the temporary files it leaves are removed by
/// the next operation. Nothing is created on disk until something is written.
public final class DeviceLibrary: Sendable {
    /// The library's folder.
    public let root: String

    /// A library in `root`, which need not exist yet.
    public init(root: String) {
        var root = root
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        self.root = root
    }

    /// `$MAPBOOK_HOME`, else `$XDG_DATA_HOME/mapbook`, else `~/.local/share/mapbook`.
    ///
    /// A relative `XDG_DATA_HOME` is ignored, as the XDG base directory specification says;
    /// without `HOME`, the home folder comes from the password database.
    public static func defaultRoot(environment: [String: String]) -> String {
        if let home = environment["MAPBOOK_HOME"], !home.isEmpty { return home }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/mapbook" }
        var home = environment["HOME"] ?? ""
        if home.isEmpty, let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir { home = String(cString: dir) }
        return home + "/.local/share/mapbook"
    }

    /// The library this process's environment names (`defaultRoot`).
    public static func fromEnvironment() -> DeviceLibrary {
        var environment: [String: String] = [:]
        for key in ["MAPBOOK_HOME", "XDG_DATA_HOME", "HOME"] {
            if let value = getenv(key) { environment[key] = String(cString: value) }
        }
        return DeviceLibrary(root: defaultRoot(environment: environment))
    }

    // The layout (docs/LIBRARY.md).
    var statePath: String { root + "/library.json" }
    var credentialPath: String { root + "/credential.json" }
    var sideloadedFolder: String { root + "/sideloaded" }
    var downloadsFolder: String { root + "/downloads" }
    var lockPath: String { root + "/.lock" }

    /// Runs `body` holding the library's lock, after removing what crashed writers left.
    ///
    /// When the library does not exist and `creating` is false, `body` runs without a lock:
    /// there is nothing to read, and a read-only command should not create the folder.
    ///
    /// The corresponding C functions are `open` and `flock`.
    func withLock<T>(creating: Bool, _ body: () throws -> T) throws -> T {
        if !creating && FileSystem.kind(root) == nil { return try body() }
        try LibraryFiles.makeDirectories(root)
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw LibraryError(kind: .io(errno: errno), path: lockPath, message: "cannot open the library's lock file: \(FileSystem.errorMessage())")
        }
        // Closing the descriptor releases the lock, on every path out.
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw LibraryError(kind: .io(errno: errno), path: lockPath, message: "cannot lock the library: \(FileSystem.errorMessage())")
            }
        }
        try recoverInterruptedWork()
        return try body()
    }

    // MARK: - Mode

    /// The current mode: device mode when none was ever chosen.
    public func mode() throws -> LibraryMode {
        try withLock(creating: false) { try readState().mode }
    }

    /// The portal the library is in portal mode with; nil in device mode.
    public func portalURL() throws -> String? {
        try withLock(creating: false) { try readState().portalURL }
    }

    /// Switches the library's mode.
    ///
    /// To device mode: removes every downloaded package, unfinished download and the
    /// credential, as the Offline Mapbook app does. To portal mode: needs `portalURL` (it may
    /// be left out when already in portal mode); a different portal than the current one
    /// removes the downloads and credential of the old one. Sideloaded packages are never
    /// removed, only hidden in portal mode.
    @discardableResult
    public func setMode(_ mode: LibraryMode, portalURL: String?) throws -> LibraryCleanup {
        try withLock(creating: true) {
            let current = try readState()
            var cleanup = LibraryCleanup()
            switch mode {
            case .device:
                if let portalURL {
                    throw LibraryError(kind: .wrongMode, path: root, message: "device mode has no portal, but '\(portalURL)' was given; leave the portal out")
                }
                // Downloads go before the mode changes: a crash in between leaves portal mode
                // with fewer downloads, never device mode with hidden ones nobody can remove.
                cleanup = try removeDownloadsAndCredential()
                if current.mode != .device { try writeState(mode: .device, portalURL: nil) }
            case .portal:
                guard let url = try portalURL.map(Self.normalizedPortalURL) ?? (current.mode == .portal ? current.portalURL : nil) else {
                    throw LibraryError(kind: .wrongMode, path: root, message: "portal mode needs the portal's URL (for example https://www.arcgis.com)")
                }
                if current.mode == .portal, let old = current.portalURL, old != url {
                    cleanup = try removeDownloadsAndCredential()
                }
                if current.mode != .portal || current.portalURL != url { try writeState(mode: .portal, portalURL: url) }
            }
            return cleanup
        }
    }

    /// A portal URL in the one form the library stores and compares: scheme and host in
    /// lowercase, no trailing slash. Refuses URLs that are not http(s), and URLs carrying a
    /// user name or password, which the library must never store.
    public static func normalizedPortalURL(_ url: String) throws(LibraryError) -> String {
        func refuse(_ why: String) -> LibraryError { LibraryError(kind: .invalidPortalURL, path: url, message: "is not a portal URL: \(why)") }
        guard url.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else { throw refuse("it contains spaces or control characters") }
        guard let schemeEnd = url.firstRange(of: "://") else { throw refuse("give it with its scheme, as https://host/portal") }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else { throw refuse("only http and https portals are supported") }
        let rest = url[schemeEnd.upperBound...]
        let hostEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        let host = rest[..<hostEnd]
        var path = String(rest[hostEnd...])
        guard !host.isEmpty else { throw refuse("it has no host") }
        guard !host.contains("@") else { throw refuse("it carries a user name or password; give the bare URL and sign in instead") }
        guard !path.contains("?") && !path.contains("#") else { throw refuse("leave out the query and fragment") }
        while path.hasSuffix("/") { path.removeLast() }
        return "\(scheme)://\(host.lowercased())\(path)"
    }

    struct State {
        var mode: LibraryMode
        var portalURL: String?
    }

    func readState() throws -> State {
        guard let bytes = try LibraryFiles.read(statePath) else { return State(mode: .device) }
        let fix = "fix it, or delete it to start again in device mode"
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch {
            throw LibraryError(kind: .json(error.kind), path: statePath, message: "is not valid JSON (\(error)); \(fix)")
        }
        guard let o = value.objectValue, let name = o.string("mode"), let mode = LibraryMode(rawValue: name) else {
            throw LibraryError(kind: .invalidState, path: statePath, message: "has no 'mode' of \"device\" or \"portal\"; \(fix)")
        }
        guard mode == .portal else { return State(mode: .device) }
        guard let url = o.string("portalUrl"), let normalized = try? Self.normalizedPortalURL(url) else {
            throw LibraryError(kind: .invalidState, path: statePath, message: "is in portal mode without a valid 'portalUrl'; \(fix)")
        }
        return State(mode: .portal, portalURL: normalized)
    }

    func writeState(mode: LibraryMode, portalURL: String?) throws {
        var o: JSONObject = ["mode": .string(mode.rawValue)]
        if let portalURL { o["portalUrl"] = .string(portalURL) }
        try AtomicFile.write(JSONWriter.bytes(.object(o)), to: statePath)
    }

    // MARK: - Listing and removing

    /// The current mode's packages, by title: sideloaded ones in device mode, downloaded ones
    /// in portal mode. Damaged and foreign files are entries with a `problem`.
    public func list() throws -> [LibraryEntry] {
        try withLock(creating: false) { try entries(for: readState().mode) }
    }

    func entries(for mode: LibraryMode) throws -> [LibraryEntry] {
        let found = mode == .device ? scanSideloaded() : scanDownloads()
        return found.sorted { ($0.title, $0.name) < ($1.title, $1.name) }
    }

    /// Removes a package of the current mode's list, named by its file name (with or without
    /// `.mmpk`), its item id, or its title when only one package has it. Returns what it removed.
    ///
    /// A download goes with its record and any unfinished download of the same item.
    /// Packages the current mode hides are not touched.
    @discardableResult
    public func remove(_ nameOrItemId: String) throws -> LibraryEntry {
        try withLock(creating: false) {
            let mode = try readState().mode
            let entries = try entries(for: mode)
            let key = nameOrItemId
            // The most exact way of naming a package wins: file name, item id, stem, title.
            let ways: [(LibraryEntry) -> Bool] = [{ $0.name == key }, { $0.itemId == key }, { Self.stem($0.name) == key }, { $0.title == key }]
            let matches = ways.lazy.map { entries.filter($0) }.first { !$0.isEmpty } ?? []
            guard let entry = matches.first else {
                let other: LibraryMode = mode == .device ? .portal : .device
                let hidden = try self.entries(for: other)
                if ways.contains(where: { hidden.contains(where: $0) }) {
                    throw LibraryError(
                        kind: .wrongMode, path: root,
                        message: "'\(key)' is a \(other == .device ? "sideloaded" : "downloaded") package, which \(mode) mode hides; it can only be removed in \(other) mode")
                }
                throw LibraryError(kind: .noSuchPackage, path: root, message: "no package '\(key)' in the library (\(mode) mode); `mapbook library list` shows the names")
            }
            guard matches.count == 1 else {
                throw LibraryError(
                    kind: .ambiguousName, path: root,
                    message: "\(matches.count) packages go by '\(key)'; remove one by its file name: \(matches.map(\.name).joined(separator: ", "))")
            }
            switch entry.kind {
            case .sideloaded:
                try LibraryFiles.remove(entry.path)
                FileSystem.syncDirectory(sideloadedFolder)
            case .downloaded:
                if let id = entry.itemId {
                    _ = try removeDownload(itemId: id)
                } else {
                    try LibraryFiles.remove(entry.path)
                }
                FileSystem.syncDirectory(downloadsFolder)
            }
            return entry
        }
    }

    /// A file name without its last extension.
    static func stem(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// Removes what an interrupted operation left: temporary files, and a download commit cut
    /// short, which is finished or undone (see `commitDownload`). Runs under the lock.
    func recoverInterruptedWork() throws {
        for folder in [root, sideloadedFolder, downloadsFolder] {
            // AtomicFile's temporary names: `.<name>.tmp-XXXXXX`.
            for name in FileSystem.names(in: folder) where name.hasPrefix(".") && name.contains(".tmp-") {
                try LibraryFiles.remove(folder + "/" + name)
            }
        }
        try recoverCommits()
    }
}
