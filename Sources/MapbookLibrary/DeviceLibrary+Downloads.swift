import MapbookPackage
import MapbookSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Downloaded packages: `downloads/<itemId>.mmpk` with its record `<itemId>.json`, shown in
/// portal mode (docs/LIBRARY.md).
extension DeviceLibrary {
    /// The records of the downloaded packages that are sound, by title: the ones to check
    /// for updates. Damaged ones are left out; `list()` reports them.
    public func downloads() throws -> [DownloadRecord] {
        try withLock(creating: false) {
            scanDownloads().filter { $0.problem == nil }.compactMap(\.record).sorted { ($0.title, $0.itemId) < ($1.title, $1.itemId) }
        }
    }

    /// Where to download item `itemId` to: `downloads/<itemId>.partial`, inside the library
    /// so that `commitDownload` can rename it into place. A file already there is an
    /// interrupted download of the same item, to resume with a Range request.
    ///
    /// Throws when the library is not in portal mode, or when `itemId` is not a valid id.
    public func partialDownloadPath(itemId: String) throws -> String {
        try ItemID.check(itemId, from: downloadsFolder)
        return try withLock(creating: true) {
            _ = try requirePortalMode()
            try LibraryFiles.makeDirectories(downloadsFolder)
            return partialPath(itemId)
        }
    }

    /// The `ETag` the portal sent with the unfinished download of `itemId`, to send back as
    /// `If-Range` when resuming it (so that bytes of another version are never appended);
    /// nil when there is no unfinished download or it was started without one.
    public func partialDownloadETag(itemId: String) throws -> String? {
        try ItemID.check(itemId, from: downloadsFolder)
        return try withLock(creating: false) {
            guard FileSystem.kind(partialPath(itemId)) == .file, let bytes = try LibraryFiles.read(partialETagPath(itemId), limit: 4096) else { return nil }
            let text = String(decoding: bytes, as: UTF8.self)
            return text.isEmpty ? nil : text
        }
    }

    /// Keeps `etag` beside the unfinished download of `itemId` (`downloads/<itemId>.etag`),
    /// or removes it when nil. Written before the bytes it describes, so an interrupted
    /// download always resumes against the version it started with.
    public func setPartialDownloadETag(_ etag: String?, itemId: String) throws {
        try ItemID.check(itemId, from: downloadsFolder)
        try withLock(creating: true) {
            _ = try requirePortalMode()
            try LibraryFiles.makeDirectories(downloadsFolder)
            if let etag, !etag.isEmpty {
                try AtomicFile.write(Array(etag.utf8), to: partialETagPath(itemId))
            } else {
                try LibraryFiles.remove(partialETagPath(itemId))
            }
        }
    }

    /// Removes the unfinished download of `itemId` and its `ETag`, so the next download
    /// starts from the first byte. Returns whether there was one.
    @discardableResult
    public func discardPartialDownload(itemId: String) throws -> Bool {
        try ItemID.check(itemId, from: downloadsFolder)
        return try withLock(creating: false) {
            let removed = try LibraryFiles.remove(partialPath(itemId))
            try LibraryFiles.remove(partialETagPath(itemId))
            FileSystem.syncDirectory(downloadsFolder)
            return removed
        }
    }

    /// Puts a finished download into the library as `<itemId>.mmpk` with `record` beside it,
    /// replacing an earlier download of the item, and returns its entry.
    ///
    /// The file at `partial` must have `record.size` bytes and `record.sha256`, and open as a
    /// mobile map package; when it does not, it is left where it is and nothing changes. The
    /// package and its record are replaced together: a crash at any point leaves the old
    /// pair or the new one once the library is next opened (see docs/LIBRARY.md).
    @discardableResult
    public func commitDownload(itemId: String, from partial: String, record: DownloadRecord) throws -> LibraryEntry {
        try ItemID.check(itemId, from: partial)
        guard record.itemId == itemId else {
            throw LibraryError(kind: .wrongItem, path: partial, message: "the record is for item \(record.itemId), not \(itemId); nothing was stored")
        }
        guard SHA256Digest.isHex(record.sha256), record.size >= 0 else {
            throw LibraryError(kind: .invalidRecord, path: partial, message: "the record needs the size and SHA-256 (64 lowercase hex digits) to check the download against")
        }
        let recordPortal = try Self.normalizedPortalURL(record.portalUrl)
        return try withLock(creating: true) {
            let portal = try requirePortalMode()
            guard recordPortal == portal else {
                throw LibraryError(kind: .wrongPortal, path: partial, message: "the download is from \(recordPortal), but the library is in portal mode with \(portal); nothing was stored")
            }
            try verifyDownload(partial, against: record)
            try LibraryFiles.makeDirectories(downloadsFolder)
            var stored = record
            stored.portalUrl = portal
            let stagedPackage = packagePath(itemId) + ".incoming"
            let stagedRecord = recordPath(itemId) + ".incoming"

            // 1. The package under its staging name; copied when the download is on another
            //    file system, where a rename cannot reach.
            var moved = true
            if rename(partial, stagedPackage) != 0 {
                guard errno == EXDEV else {
                    throw LibraryError(kind: .io(errno: errno), path: stagedPackage, message: "cannot move the download '\(partial)' into the library: \(FileSystem.errorMessage())")
                }
                try LibraryFiles.copy(partial, to: stagedPackage)
                moved = false
            }
            FileSystem.syncDirectory(downloadsFolder)
            // 2. The record under its staging name. Once it is on disk the new pair is
            //    decided: recovery finishes a commit that has it and undoes one that has not.
            do {
                try AtomicFile.write(JSONWriter.bytes(stored.jsonValue), to: stagedRecord)
            } catch {
                if moved { _ = rename(stagedPackage, partial) } else { _ = try? LibraryFiles.remove(stagedPackage) }
                throw error
            }
            // 3. Both into place.
            try finishCommit(itemId)
            if let stored = try? MobileMapPackage(path: packagePath(itemId)), stored.signature.isSigned { verifiedFiles.remember(stored) }
            if !moved { _ = try? LibraryFiles.remove(partial) }
            // The unfinished download's validator goes with it.
            _ = try? LibraryFiles.remove(partialETagPath(itemId))
            return downloadEntry(itemId: itemId)
        }
    }

    /// Checks a finished download's size, hash and format before it may replace anything.
    func verifyDownload(_ partial: String, against record: DownloadRecord) throws {
        guard FileSystem.kind(partial) == .file else {
            throw LibraryError(kind: .noDownload, path: partial, message: "there is no downloaded file here to store")
        }
        try LibraryFiles.sync(partial)
        let (hex, size) = try LibraryFiles.sha256(of: partial)
        if size < record.size {
            throw LibraryError(kind: .incompleteDownload, path: partial, message: "has \(size) of the item's \(record.size) bytes: the download is incomplete; resume it")
        }
        if size > record.size {
            throw LibraryError(kind: .damagedDownload, path: partial, message: "has \(size) bytes, more than the item's \(record.size): the download is damaged; delete it and download again")
        }
        guard hex == record.sha256 else {
            throw LibraryError(kind: .damagedDownload, path: partial, message: "has SHA-256 \(hex), not the item's \(record.sha256): the download is damaged; delete it and download again")
        }
        do {
            // A signed package is checked whole against its signed manifest: a portal that
            // changed an entry is caught even though the file's hash is the one it gave.
            let package = try MobileMapPackage(path: partial)
            if package.signature.isSigned { try package.verifyEntries() }
        } catch {
            throw LibraryError(kind: .notAPackage(Self.packageKind(error, opening: partial)), path: partial, message: "the download does not open as a mobile map package (\(Self.reason(error, opening: partial))); the portal item is not a package, or it is damaged")
        }
    }

    /// Renames a commit's staged package (when still staged) and record into place.
    func finishCommit(_ itemId: String) throws {
        let stagedPackage = packagePath(itemId) + ".incoming"
        if FileSystem.kind(stagedPackage) != nil { try LibraryFiles.rename(stagedPackage, to: packagePath(itemId)) }
        try LibraryFiles.rename(recordPath(itemId) + ".incoming", to: recordPath(itemId))
        FileSystem.syncDirectory(downloadsFolder)
    }

    /// Finishes the commits whose record was staged and undoes the others (their package is
    /// removed; the old pair, if any, is still in place). Runs under the lock.
    func recoverCommits() throws {
        for name in FileSystem.names(in: downloadsFolder) where name.hasSuffix(".json.incoming") {
            let id = String(name.dropLast(".json.incoming".count))
            if ItemID.isValid(id) { try finishCommit(id) }
        }
        for name in FileSystem.names(in: downloadsFolder) where name.hasSuffix(".mmpk.incoming") {
            try LibraryFiles.remove(downloadsFolder + "/" + name)
        }
    }

    func packagePath(_ itemId: String) -> String { "\(downloadsFolder)/\(itemId).mmpk" }

    /// The package downloaded for `itemId`, if the library holds one: what an update by delta
    /// builds the new version from.
    public func downloadedPackage(itemId: String) -> String? {
        guard ItemID.isValid(itemId), FileSystem.kind(packagePath(itemId)) == .file else { return nil }
        return packagePath(itemId)
    }

    /// Bytes free for the library's downloads; nil when the system does not say.
    ///
    /// The corresponding C function is `statvfs`.
    public func freeBytes() -> Int64? {
        // The nearest folder that exists: the downloads, the library, or where it will be made.
        var info = statvfs()
        guard let folder = [downloadsFolder, root, FileSystem.parent(of: root)].first(where: { FileSystem.kind($0) == .directory }),
            statvfs(folder, &info) == 0
        else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }
    func recordPath(_ itemId: String) -> String { "\(downloadsFolder)/\(itemId).json" }
    func partialPath(_ itemId: String) -> String { "\(downloadsFolder)/\(itemId).partial" }
    func partialETagPath(_ itemId: String) -> String { "\(downloadsFolder)/\(itemId).etag" }

    /// The portal of a library in portal mode; throws in device mode.
    func requirePortalMode() throws -> String {
        let state = try readState()
        guard state.mode == .portal, let url = state.portalURL else {
            throw LibraryError(
                kind: .wrongMode, path: root, message: "the library is in device mode, which keeps no downloads; switch to portal mode first (`mapbook library mode portal --portal URL`)")
        }
        return url
    }

    /// Every download in `downloads/`, one entry per item; files that are not the library's
    /// are entries with a problem. Unfinished downloads (`.partial`) are not packages yet and
    /// are left out.
    func scanDownloads() -> [LibraryEntry] {
        var entries: [LibraryEntry] = []
        var seen: Set<String> = []
        for name in FileSystem.names(in: downloadsFolder) where !name.hasPrefix(".") {
            let id = Self.stem(name)
            let ours = ItemID.isValid(id) && [".mmpk", ".json", ".partial", ".etag"].contains(where: { name.hasSuffix($0) })
            guard ours else {
                let path = downloadsFolder + "/" + name
                entries.append(
                    LibraryEntry(
                        kind: .downloaded, name: name, path: path, title: name, size: FileSystem.size(path) ?? 0,
                        problem: "is not a download of this library; move it out of the library"))
                continue
            }
            guard !name.hasSuffix(".partial"), !name.hasSuffix(".etag"), seen.insert(id).inserted else { continue }
            entries.append(downloadEntry(itemId: id))
        }
        return entries
    }

    /// The entry of item `itemId`'s download, with a problem when its package or record is
    /// missing or damaged.
    func downloadEntry(itemId id: String) -> LibraryEntry {
        let package = packagePath(id)
        let again = "remove it with `mapbook library remove \(id)` and download it again"
        var entry = LibraryEntry(kind: .downloaded, name: id + ".mmpk", path: package, title: id, itemId: id, size: FileSystem.size(package) ?? 0)
        let record: DownloadRecord?
        var recordProblem: String?
        do {
            record = try readRecord(itemId: id)
        } catch {
            record = nil
            recordProblem = error.message
        }
        if let record {
            entry.record = record
            if !record.title.isEmpty { entry.title = record.title }
        }
        switch FileSystem.kind(package) {
        case nil:
            entry.name = id + ".json"
            entry.path = recordPath(id)
            entry.size = FileSystem.size(entry.path) ?? 0
            if let recordProblem {
                entry.problem = "is a damaged download record without its package: \(recordProblem); \(again)"
            } else {
                entry.problem = "is a download record without its package (\(id).mmpk); \(again)"
            }
        case .directory?, .other?:
            entry.problem = "is not a package file but a folder or link; move it out of the library"
        case .file?:
            if let recordProblem {
                entry.problem = "has a damaged download record, \(id).json: \(recordProblem); \(again)"
            } else if let record, record.size != entry.size {
                entry.problem = "has \(entry.size) bytes, but \(record.size) were downloaded: the file was changed or damaged; \(again)"
            } else if record == nil {
                entry.problem = "has no download record (\(id).json), so its portal and version are unknown; \(again)"
            }
        }
        return entry
    }

    /// The record of item `itemId`, nil when there is none.
    func readRecord(itemId: String) throws(LibraryError) -> DownloadRecord? {
        let path = recordPath(itemId)
        guard let bytes = try LibraryFiles.read(path) else { return nil }
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch {
            throw LibraryError(kind: .json(error.kind), path: path, message: "the download record is not valid JSON (\(error))")
        }
        let record = try DownloadRecord(json: value, path: path)
        guard record.itemId == itemId else {
            throw LibraryError(kind: .wrongItem, path: path, message: "the download record is for item \(record.itemId), not \(itemId)")
        }
        return record
    }

    /// Removes item `itemId`'s package, record and unfinished download; package first, so a
    /// crash part-way leaves a record without package, which `list` reports and `remove` clears.
    @discardableResult
    func removeDownload(itemId: String) throws -> Bool {
        var removed = false
        for path in [packagePath(itemId), recordPath(itemId), partialPath(itemId), partialETagPath(itemId)] {
            if try LibraryFiles.remove(path) { removed = true }
        }
        return removed
    }

    /// Removes the credential, every download, unfinished downloads and foreign files in
    /// `downloads/` (folders excepted): what signing out and device mode require.
    func removeDownloadsAndCredential() throws -> LibraryCleanup {
        var cleanup = LibraryCleanup()
        cleanup.removedCredential = try? readCredential()
        try LibraryFiles.remove(credentialPath)
        for entry in scanDownloads() where FileSystem.kind(entry.path) != .directory {
            if let id = entry.itemId { try removeDownload(itemId: id) } else { try LibraryFiles.remove(entry.path) }
            cleanup.removedPackages.append(entry)
        }
        for name in FileSystem.names(in: downloadsFolder) where name.hasSuffix(".partial") {
            try LibraryFiles.remove(downloadsFolder + "/" + name)
            cleanup.removedPartialDownloads.append(Self.stem(name))
        }
        for name in FileSystem.names(in: downloadsFolder) where name.hasSuffix(".etag") {
            try LibraryFiles.remove(downloadsFolder + "/" + name)
        }
        cleanup.removedPortalCertificate = try LibraryFiles.remove(portalCertificatePath)
        FileSystem.syncDirectory(downloadsFolder)
        FileSystem.syncDirectory(root)
        return cleanup
    }
}
