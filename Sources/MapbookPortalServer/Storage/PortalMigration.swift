#if canImport(Glibc)
import Glibc
#endif
import MapbookPackage
import MapbookSupport

/// Moves a portal from one pair of stores to another (`mapbook portal migrate`): an embedded
/// portal's SQLite and folders to PostgreSQL and an S3 bucket, as it grows past one machine.
///
/// Copies settings (the organization id, the OAuth signing key, the versions devices must
/// hold), users (password hashes as they are), tokens (devices stay signed in), groups,
/// folders, every committed item with its data file and info files, devices' versions,
/// replicas' syncs, item histories and the audit log, then checks what it wrote: every item's record read back
/// equals the source's, and its data read back hashes to the recorded SHA-256. Running it
/// again copies everything again (records are replaced, files stored under their versions),
/// so a migration cut short is finished by running it once more. Uploads in progress are not
/// moved: they are finished at the old portal, or started again.
public struct PortalMigration: Sendable {
    public struct Summary: Sendable, Equatable {
        public var users = 0
        public var tokens = 0
        public var groups = 0
        public var folders = 0
        public var items = 0
        public var files = 0
        public var bytes: Int64 = 0

        /// What `mapbook portal migrate` prints, with the sync copies moved beside.
        public func line(syncCopies: Int) -> String {
            "migrated \(users) users, \(tokens) tokens, \(groups) groups, \(folders) folders, \(items) items (\(files) files, \(bytes) bytes) and \(syncCopies) sync copies; every item's metadata and SHA-256 checked"
        }
    }

    /// Which item a check found different, and how.
    public struct Mismatch: Error, CustomStringConvertible, Sendable {
        public var itemId: String
        public var problem: String
        public var description: String { "item \(itemId): \(problem)" }
    }

    public let from: (store: any PortalStore, files: any ItemFileStore)
    public let to: (store: any PortalStore, files: any ItemFileStore)

    public init(from: (store: any PortalStore, files: any ItemFileStore), to: (store: any PortalStore, files: any ItemFileStore)) {
        self.from = from
        self.to = to
    }

    /// Copies everything, then checks every item; `progress` is told of each item.
    public func run(progress: (String) -> Void = { _ in }) async throws -> Summary {
        var summary = Summary()
        for (key, value) in try await from.store.settings() { try await to.store.setSetting(key, value) }
        let users = try await from.store.users()
        for user in users {
            try await to.store.saveUser(user)
            for folder in try await from.store.folders(owner: user.username) {
                try await to.store.saveFolder(folder)
                summary.folders += 1
            }
        }
        summary.users = users.count
        let now = TokenService.now()
        for token in try await from.store.tokens() where token.expires > now {
            try await to.store.saveToken(token)
            summary.tokens += 1
        }
        for group in try await from.store.groups() {
            try await to.store.saveGroup(group)
            summary.groups += 1
        }
        let items = try await from.store.items().filter { $0.status == .ready }
        for record in items {
            var copied = record
            if let name = record.item.name, let data = try await from.files.dataFile(itemId: record.item.id, version: record.dataVersion, fileName: name, size: nil) {
                // The same version name at the destination: a second run replaces, never adds.
                let version = record.version ?? "v" + String((record.sha256 ?? record.item.id).prefix(16))
                try await from.files.withLocalCopy(data) { path in
                    try await to.files.putData(itemId: record.item.id, version: version, fileName: name, from: path)
                }
                copied.version = version
                summary.files += 1
                summary.bytes += data.size
            }
            if let thumbnail = record.item.thumbnail, let bytes = try await from.files.infoBytes(itemId: record.item.id, path: thumbnail) {
                try await to.files.putInfo(itemId: record.item.id, path: thumbnail, bytes: bytes)
                summary.files += 1
            }
            try await to.store.saveItem(copied)
            try await copyActivity(of: record.item.id)
            summary.items += 1
            progress(record.item.id)
        }
        // The audit log is appended to, never replaced: copied once, into a log still empty.
        if try await to.store.auditEntries(before: nil, limit: 1).isEmpty {
            for entry in try await from.store.auditEntries(before: nil, limit: Int(Int32.max)).reversed() { try await to.store.recordAudit(entry) }
        }
        try await check(items)
        return summary
    }

    /// What the item page shows of an item's life: devices' versions and replicas' syncs
    /// (replaced), and its history (copied once, into a history still empty).
    func copyActivity(of id: String) async throws {
        for report in try await from.store.deviceReports(itemId: id) { try await to.store.saveDeviceReport(report) }
        for sync in try await from.store.replicaSyncs(itemId: id) { try await to.store.saveReplicaSync(sync) }
        if try await to.store.itemEvents(itemId: id, limit: 1).isEmpty {
            for event in try await from.store.itemEvents(itemId: id, limit: Int(Int32.max)).reversed() { try await to.store.recordItemEvent(event) }
        }
    }

    /// Copies the folder `source` into `destination` (files and folders; made as needed): the
    /// sync copies, which live in a process's data folder. Files are written under a
    /// temporary name and renamed.
    public static func copyTree(_ source: String, to destination: String) throws {
        try Disk.makeDirectories(destination)
        for name in FileSystem.names(in: source) {
            let from = source + "/" + name, to = destination + "/" + name
            switch FileSystem.kind(from) {
            case .directory: try copyTree(from, to: to)
            case .file:
                let staged = to + ".migrating"
                let fd = open(staged, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                guard fd >= 0 else { throw PortalStoreError(kind: .io(errno: errno), path: staged, message: "cannot write: \(FileSystem.errorMessage())") }
                close(fd)
                _ = try DiskItemFileStore.copy([from], into: staged, limit: .max, number: { _ in 1 })
                guard rename(staged, to) == 0 else { throw PortalStoreError(kind: .io(errno: errno), path: to, message: "cannot write: \(FileSystem.errorMessage())") }
            default: continue
            }
        }
    }

    /// Every item's record at the destination equals the source's (but for the data
    /// version), and its data hashes to the recorded SHA-256.
    func check(_ items: [ItemRecord]) async throws {
        for record in items {
            guard var moved = try await to.store.item(record.item.id) else { throw Mismatch(itemId: record.item.id, problem: "missing at the destination") }
            moved.version = record.version
            guard moved == record else { throw Mismatch(itemId: record.item.id, problem: "its metadata differs at the destination") }
            guard let name = record.item.name, let sha = record.sha256 else { continue }
            let stored = try await to.store.item(record.item.id)
            guard let file = try await to.files.dataFile(itemId: record.item.id, version: stored?.dataVersion ?? "", fileName: name, size: nil) else {
                throw Mismatch(itemId: record.item.id, problem: "its data file is missing at the destination")
            }
            var digest = SHA256Digest()
            try await to.files.read(file, range: nil) { buffer in buffer.withUnsafeReadableBytes { digest.update($0) } }
            guard digest.finalizeHex() == sha else { throw Mismatch(itemId: record.item.id, problem: "its data does not hash to the recorded SHA-256 \(sha)") }
        }
    }
}
