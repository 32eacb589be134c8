#if canImport(Glibc)
import Glibc
#endif
import MapbookEditing
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport
import NIOPosix

/// The authoritative copies of editable items when several portal processes share PostgreSQL
/// and a bucket, so a device may synchronise through any of them.
///
/// The copy (the GeoPackage `AuthoritativeCopy` merges into, with its changeset log and
/// per-feature generations) is an object of the item in the bucket (`sync/<version>.gpkg`),
/// its attachments beside it (`sync/attachments/<sha256>`); PostgreSQL names the current
/// version and its generation (`sync_copies`) and keeps each replica's last generation
/// (`sync_replicas`). A sync holds PostgreSQL's advisory lock for the item, so one process at a
/// time changes a copy: it brings its local copy (`<data>/sync/<id>/data.gpkg`, the version it
/// holds in `version` beside it) up to the current one, merges, stores the result as a new
/// version and names it in PostgreSQL before answering. A process killed midway leaves the
/// old version current and its own local copy marked stale: the device resends the same
/// changeset, which is applied once.
struct SharedSyncCopies: Sendable {
    let store: PostgresPortalStore
    let files: any ItemFileStore
    /// `<data>/sync`: this process's copies.
    let root: String

    func folder(_ id: String) -> String { root + "/" + id }
    func localPath(_ id: String) -> String { folder(id) + "/data.gpkg" }
    func marker(_ id: String) -> String { folder(id) + "/version" }
    static func objectName(_ version: String) -> String { "sync/\(version).gpkg" }
    static func attachmentName(_ sha: String) -> String { "sync/attachments/\(sha)" }
    static func lockKey(_ id: String) -> String { "mapbook-sync:" + id }

    /// Brings this process's copy of the item up to the current version (call it holding the
    /// item's lock); nil when the item has no copy.
    func refresh(_ id: String) async throws -> (path: String, version: String, generation: Int64)? {
        guard let current = try await store.syncCopy(itemId: id) else { return nil }
        let path = localPath(id)
        if access(path, F_OK) == 0, let held = try? readSmall(marker(id)), held == current.version {
            return (path, current.version, current.generation)
        }
        guard let file = try await files.object(itemId: id, name: Self.objectName(current.version)) else {
            throw PortalStoreError(kind: .objectStore(.failed), path: Self.objectName(current.version), message: "item \(id)'s sync copy is missing from the bucket")
        }
        try Disk.makeDirectories(folder(id))
        unlink(marker(id))
        try await download(file, to: path)
        try Disk.writeAtomically(Array(current.version.utf8), to: marker(id))
        return (path, current.version, current.generation)
    }

    /// Writes a stored file to `path` (a temporary name, then renamed).
    func download(_ file: StoredFile, to path: String) async throws {
        let temporary = path + ".download"
        do {
            try await files.download(file, to: temporary)
        } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else { throw PortalStoreError(kind: .io(errno: errno), path: path, message: "cannot write: \(FileSystem.errorMessage())") }
    }

    func readSmall(_ path: String) throws -> String {
        let file = try RandomAccessFile(path: path)
        return String(decoding: try file.read(at: 0, count: Int(min(file.size, 256))), as: UTF8.self)
    }

    /// Gives a published package's data its copy, or replaces the copy while nothing has been
    /// synchronised to it (generation 0); removes it when the new version has no editable layers.
    func make(_ id: String, from package: String) async throws {
        try await store.withLock(Self.lockKey(id)) {
            let current = try await store.syncCopy(itemId: id)
            if let current, current.generation != 0 {
                // Synchronised to: kept, with the new version's maps describing its service.
                guard let local = try await refresh(id) else { return }
                let path = local.path
                unlink(marker(id))
                try await NIOThreadPool.singleton.runIfActive {
                    guard let package = try? MobileMapPackage(path: package) else { return }
                    try AuthoritativeCopy(path: path).recordServiceLayers(from: package)
                }
                let version = Portal.newVersion()
                try await files.putObject(itemId: id, name: Self.objectName(version), from: path)
                try await store.saveSyncCopy(itemId: id, version: version, generation: current.generation)
                await files.removeObject(itemId: id, name: Self.objectName(current.version))
                try Disk.writeAtomically(Array(version.utf8), to: marker(id))
                return
            }
            try Disk.makeDirectories(folder(id))
            let built = folder(id) + "/publish.gpkg"
            defer { unlink(built) }
            // The copy it replaces, for the numbers of the service's layers.
            let previous = current == nil ? nil : try await refresh(id)?.path
            let generation = try await NIOThreadPool.singleton.runIfActive { () throws -> Int64? in
                guard let package = try? MobileMapPackage(path: package), try AuthoritativeCopy.make(from: package, at: built, replacing: previous) else { return nil }
                return try AuthoritativeCopy(path: built).generation()
            }
            guard let generation else {
                if let current {
                    try await store.deleteSyncCopy(itemId: id)
                    await files.removeObject(itemId: id, name: Self.objectName(current.version))
                }
                FileSystem.removeTree(folder(id))
                return
            }
            let version = Portal.newVersion()
            try await files.putObject(itemId: id, name: Self.objectName(version), from: built)
            try await store.saveSyncCopy(itemId: id, version: version, generation: generation)
            if let current { await files.removeObject(itemId: id, name: Self.objectName(current.version)) }
            unlink(marker(id))
            guard rename(built, localPath(id)) == 0 else { return }
            try Disk.writeAtomically(Array(version.utf8), to: marker(id))
        }
    }

    /// Applies a device's sync request (AuthoritativeCopy.synchronise) to the current copy and
    /// makes the result the current copy, or changes nothing.
    func synchronise(_ id: String, _ request: SyncRequest, user: String, now: Int64) async throws -> SyncResponse {
        try await change(id, prepare: { try await fetchAttachments(id, for: request) }) { copy in
            try copy.synchronise(request, user: user, now: now)
        } finish: { response in
            try await store.saveSyncReplica(itemId: id, replica: request.replica, username: user, generation: response.generation, time: now)
        }
    }

    /// Runs `body` on the current copy, holding the item's lock, and makes the result the
    /// current copy when its generation moved, or changes nothing. `prepare` runs first and
    /// `finish` after the new version is named, both under the lock.
    func change<T: Sendable>(
        _ id: String, prepare: @escaping @Sendable () async throws -> Void = {}, _ body: @escaping @Sendable (AuthoritativeCopy) throws -> T,
        finish: @escaping @Sendable (T) async throws -> Void = { _ in }
    ) async throws -> T {
        try await store.withLock(Self.lockKey(id)) {
            guard let current = try await refresh(id) else { throw Portal.noCopy(id) }
            try await prepare()
            // Marked stale while it changes: a process killed now downloads it again.
            unlink(marker(id))
            let result: T, generation: Int64
            do {
                let path = current.path
                (result, generation) = try await NIOThreadPool.singleton.runIfActive {
                    let copy = try AuthoritativeCopy(path: path)
                    return (try body(copy), try copy.generation())
                }
            } catch where error is SyncError || error is FeatureServiceError {
                // Refused whole: the transaction rolled back, the copy is as it was.
                try Disk.writeAtomically(Array(current.version.utf8), to: marker(id))
                throw error
            } catch {
                unlink(current.path)
                throw error
            }
            do {
                var held = current.version
                if generation != current.generation {
                    let version = Portal.newVersion()
                    try await files.putObject(itemId: id, name: Self.objectName(version), from: current.path)
                    try await store.saveSyncCopy(itemId: id, version: version, generation: generation)
                    await files.removeObject(itemId: id, name: Self.objectName(current.version))
                    held = version
                }
                try Disk.writeAtomically(Array(held.utf8), to: marker(id))
                try await finish(result)
                return result
            } catch {
                unlink(current.path)
                throw error
            }
        }
    }

    /// This process's copy of the item as it now is, for reading (nil: the item has none):
    /// the item's lock is taken only when the copy must be fetched.
    func current(_ id: String) async throws -> String? {
        guard let current = try await store.syncCopy(itemId: id) else { return nil }
        if access(localPath(id), F_OK) == 0, let held = try? readSmall(marker(id)), held == current.version { return localPath(id) }
        return try await store.withLock(Self.lockKey(id)) { try await refresh(id)?.path }
    }

    /// The attachments a request's changeset names (by SHA-256) that the bucket has and this
    /// process has not, fetched before the merge, which fills them in from local files.
    func fetchAttachments(_ id: String, for request: SyncRequest) async throws {
        let changes = (try? SQLiteChangeset.changes(request.changeset, source: "the changeset")) ?? []
        var wanted = Set<String>()
        for change in changes {
            for case .text(let value)? in change.new where SHA256Digest.isHex(value) { wanted.insert(value) }
        }
        for sha in wanted.sorted() where access(folder(id) + "/attachments/" + sha, F_OK) != 0 {
            _ = try await attachment(id, sha)
        }
    }

    /// A local file with the attachment's bytes (fetched from the bucket when this process has
    /// not got it), and its size; nil when nobody uploaded it.
    func attachment(_ id: String, _ sha: String) async throws -> (path: String, size: Int64)? {
        guard SHA256Digest.isHex(sha) else { return nil }
        let path = folder(id) + "/attachments/" + sha
        if let size = FileSystem.size(path) { return (path, size) }
        guard let file = try await files.object(itemId: id, name: Self.attachmentName(sha)) else { return nil }
        try Disk.makeDirectories(folder(id) + "/attachments")
        try await download(file, to: path)
        return (path, file.size)
    }

    /// Which of `hashes` nobody uploaded (asked of the bucket, nothing fetched).
    func missingAttachments(_ id: String, _ hashes: [String]) async throws -> [String] {
        var missing: [String] = []
        for sha in hashes {
            if SHA256Digest.isHex(sha), access(folder(id) + "/attachments/" + sha, F_OK) == 0 { continue }
            if SHA256Digest.isHex(sha), try await files.object(itemId: id, name: Self.attachmentName(sha)) != nil { continue }
            missing.append(sha)
        }
        return missing
    }

    /// Stores an uploaded attachment (checked against the copy's limit) in the bucket.
    func storeAttachment(_ id: String, file: String) async throws -> String {
        let current = try await store.withLock(Self.lockKey(id)) { try await refresh(id) }
        guard let current else {
            throw PortalError(code: 400, messageCode: "SYNC_0001", message: "Item \(id) has no editable layers to synchronise.", details: [id])
        }
        let sha = try AuthoritativeCopy(path: current.path).storeAttachment(file)
        try await files.putObject(itemId: id, name: Self.attachmentName(sha), from: folder(id) + "/attachments/" + sha)
        return sha
    }

    /// Exports the current copy for a new version of the package; returns its generation.
    func export(_ id: String, to path: String) async throws -> Int64? {
        try await store.withLock(Self.lockKey(id)) {
            guard let current = try await refresh(id) else { return nil }
            let local = current.path
            return try await NIOThreadPool.singleton.runIfActive { () throws -> Int64 in
                let copy = try AuthoritativeCopy(path: local)
                try copy.export(to: path)
                return try copy.generation()
            }
        }
    }

    /// Puts a copy made elsewhere (`folder` holding `data.gpkg` and `attachments/`, as an
    /// embedded portal keeps them) in the bucket as the item's current copy (`portal migrate`).
    func importCopy(_ id: String, from folder: String) async throws {
        let path = folder + "/data.gpkg"
        guard access(path, F_OK) == 0 else { return }
        try await store.withLock(Self.lockKey(id)) {
            for sha in FileSystem.names(in: folder + "/attachments") where SHA256Digest.isHex(sha) {
                try await files.putObject(itemId: id, name: Self.attachmentName(sha), from: folder + "/attachments/" + sha)
            }
            let generation = try await NIOThreadPool.singleton.runIfActive { try AuthoritativeCopy(path: path).generation() }
            let previous = try await store.syncCopy(itemId: id)
            let version = Portal.newVersion()
            try await files.putObject(itemId: id, name: Self.objectName(version), from: path)
            try await store.saveSyncCopy(itemId: id, version: version, generation: generation)
            if let previous { await files.removeObject(itemId: id, name: Self.objectName(previous.version)) }
        }
    }
}
