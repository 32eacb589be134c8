#if canImport(Glibc)
import Glibc
#endif
import MapbookData
import MapbookEditing
import MapbookSearch
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport
import NIOPosix

/// The portal's side of field editing (issue 19): the authoritative copy of each editable
/// package's data, who may synchronise with it, and publishing it as a new version.
///
/// The copy is a GeoPackage on this machine's disk (`<data>/sync/<item id>/data.gpkg`): a sync
/// is a write transaction on it, which SQLite serialises between requests and processes.
extension Portal {
    func syncFolder(_ itemId: String) -> String { "\(configuration.dataDirectory)/sync/\(itemId)" }
    func syncCopyPath(_ itemId: String) -> String { syncFolder(itemId) + "/data.gpkg" }

    /// Gives a newly published package with editable layers its authoritative copy. A new
    /// version replaces the copy while nothing has been synchronised to it (generation 0);
    /// after that the copy and what was synchronised stay (its edits reach a version through
    /// `publishSync`, and a device's data is merged against them, never lost to an upload).
    /// `local`: the package, as a file on this machine.
    func makeSyncCopy(_ record: ItemRecord, from local: String) async throws {
        if let sharedSync { return try await sharedSync.make(record.item.id, from: local) }
        let path = syncCopyPath(record.item.id)
        let folder = syncFolder(record.item.id), root = configuration.dataDirectory + "/sync"
        // Reads the package's data and copies it: off the cooperative pool.
        try await NIOThreadPool.singleton.runIfActive {
            guard let package = try? MobileMapPackage(path: local) else { return }
            if access(path, F_OK) == 0 {
                let copy = try AuthoritativeCopy(path: path)
                // Synchronised to: kept, with the new version's maps describing its service.
                guard try copy.generation() == 0 else { return try copy.recordServiceLayers(from: package) }
            }
            try Disk.makeDirectory(root)
            try Disk.makeDirectory(folder)
            if try !AuthoritativeCopy.make(from: package, at: path) { FileSystem.removeTree(folder) }
        }
    }

    /// Removes an item: its record, its files, its authoritative copy, and the items made
    /// from it (its feature service and web maps).
    func removeItem(_ id: String) async throws {
        try await store.deleteItem(id)
        if try await store.item(Self.serviceItemId(id)) != nil { try await removeItemsMade(from: id) }
        forgetBackdrop(id)
        featureServices.forget(under: syncFolder(id))
        try await sharedSync?.store.deleteSyncCopy(itemId: id)
        await files.remove(itemId: id)
        FileSystem.removeTree(syncFolder(id))
    }

    /// Takes the authoritative copies an embedded portal keeps in `folder` (`<data>/sync`,
    /// one folder per item), for items this portal has (`portal migrate`). Returns how many.
    public func importSyncCopies(from folder: String) async throws -> Int {
        var count = 0
        for id in FileSystem.names(in: folder) where PortalPaths.isItemId(id) {
            guard try await store.item(id) != nil else { continue }
            if let sharedSync {
                try await sharedSync.importCopy(id, from: folder + "/" + id)
            } else {
                try PortalMigration.copyTree(folder + "/" + id, to: syncFolder(id))
            }
            count += 1
        }
        return count
    }

    /// Forgets the parts of an upload in progress.
    func discardParts(_ id: String) async throws {
        let parts = try await store.uploadParts(itemId: id)
        try await store.deleteUploadParts(itemId: id)
        await files.removeParts(itemId: id, numbers: parts.map(\.number))
    }

    /// Whether `user` may change the item's data by synchronising: its owner, an admin, or a
    /// member of a group the item is shared with whose members may update its items
    /// (ArcGIS's shared update groups, capability `updateitemcontrol`).
    func canEdit(_ record: ItemRecord, _ user: UserRecord?) async throws -> Bool {
        guard let user else { return false }
        if canWrite(record, user) { return true }
        let name = user.username.lowercased()
        return try await store.groups().contains { group in
            record.groups.contains(group.id) && group.capabilities.contains(GroupRecord.updateCapability)
                && (group.members.contains { $0.lowercased() == name } || group.owner.lowercased() == name)
        }
    }

    /// Applies a device's sync request to the item's copy, as `user`.
    func synchronise(_ record: ItemRecord, _ request: SyncRequest, user: UserRecord) async throws -> SyncResponse {
        let now = TokenService.now() / 1000
        do {
            if let sharedSync { return try await sharedSync.synchronise(record.item.id, request, user: user.username, now: now) }
            let path = syncCopyPath(record.item.id)
            guard access(path, F_OK) == 0 else {
                throw PortalError(code: 400, messageCode: "SYNC_0001", message: "Item \(record.item.id) has no editable layers to synchronise.", details: [record.item.id])
            }
            return try await NIOThreadPool.singleton.runIfActive {
                try AuthoritativeCopy(path: path).synchronise(request, user: user.username, now: now)
            }
        } catch let error as SyncError {
            throw PortalError(code: 409, messageCode: "SYNC_0002", message: error.message, details: [error.kind.rawValue])
        }
    }
}

extension Portal {
    /// Publishes the item's authoritative copy as a new version of its package: the package
    /// as published with its `data.gpkg` replaced by the copy's data (sync tables left out,
    /// the generation recorded), validated and committed like any new version, so devices
    /// see an update and a fresh download holds every synchronised edit. Returns the item and
    /// the generation published.
    func publishSync(_ record: ItemRecord, call: PortalRequest) async throws -> (ItemRecord, Int64) {
        if let source = Self.areaSource(record) {
            throw PortalError.badRequest("This map area synchronises with package \(source); publish that package's synchronised data.", details: [source])
        }
        guard let name = record.item.name, let file = try await files.dataFile(itemId: record.item.id, version: record.dataVersion, fileName: name, size: nil) else {
            throw Self.noCopy(record.item.id)
        }
        let staged = try files.stagingFile(), exported = try files.stagingFile()
        let locators = staged + ".locators"
        defer {
            unlink(staged)
            unlink(exported)
            FileSystem.removeTree(locators)
        }
        guard let generation = try await exportCopy(record.item.id, to: exported) else { throw Self.noCopy(record.item.id) }
        let now = TokenService.now() / 1000
        let key = try await portalSigningKey()
        let upload = try await files.withLocalCopy(file) { local in try await NIOThreadPool.singleton.runIfActive { () throws -> UploadedFile in
            let package = try MobileMapPackage(path: local)
            guard let data = package.dataEntry else {
                throw PortalError.badRequest("The item's package has no data.gpkg.")
            }
            // The locators of the edited layers are built again from the edited data.
            let editable = try SQLiteDatabase(readOnlyPath: exported)
            let layers = Set(try EditSchema.editableTables(editable))
            try editable.close()
            var replacing: [String: PackageContents.File.Source] = [data.name: .file(path: exported)]
            let rebuilt = try LocatorRefresh.rebuild(package: package, dataEntry: data.name, dataPath: exported, layers: layers, into: locators, reuse: false)
            replacing.merge(LocatorRefresh.entries(rebuilt)) { $1 }
            _ = try PackageRewriter.write(package, replacing: replacing, timestamp: now, to: staged)
            _ = try PackageSigner.sign(staged, keys: [key])
            return try UploadedFile.hashing(staged, name: file.name)
        } }
        let updated = try await finish(record, data: upload, fileName: record.item.name ?? file.name, call: call, isNew: false, fromCopy: true)
        return (updated, generation)
    }
}

extension Portal {
    /// Writes the item's authoritative copy at `path` as a package's data.gpkg holds it
    /// (`AuthoritativeCopy.export`); the generation it is at, or nil when the item has none.
    func exportCopy(_ id: String, to path: String) async throws -> Int64? {
        if let sharedSync { return try await sharedSync.export(id, to: path) }
        let copy = syncCopyPath(id)
        guard access(copy, F_OK) == 0 else { return nil }
        return try await NIOThreadPool.singleton.runIfActive {
            let authoritative = try AuthoritativeCopy(path: copy)
            try authoritative.export(to: path)
            return try authoritative.generation()
        }
    }

    static func noCopy(_ id: String) -> PortalError {
        PortalError(code: 400, messageCode: "SYNC_0001", message: "Item \(id) has no editable layers to synchronise.", details: [id])
    }

    /// The item's authoritative copy here, for a user who may synchronise with it.
    func localSyncCopy(_ record: ItemRecord) throws -> AuthoritativeCopy {
        let path = syncCopyPath(record.item.id)
        guard access(path, F_OK) == 0 else { throw Self.noCopy(record.item.id) }
        return try AuthoritativeCopy(path: path)
    }

    /// Which of the attachments (SHA-256) nobody has uploaded for the item.
    func missingAttachments(_ record: ItemRecord, _ hashes: [String]) async throws -> [String] {
        if let sharedSync {
            guard try await sharedSync.store.syncCopy(itemId: record.item.id) != nil else { throw Self.noCopy(record.item.id) }
            return try await sharedSync.missingAttachments(record.item.id, hashes)
        }
        return try localSyncCopy(record).missingAttachments(hashes)
    }

    /// Stores an uploaded attachment; its SHA-256.
    func storeAttachment(_ record: ItemRecord, file: String) async throws -> String {
        if let sharedSync { return try await sharedSync.storeAttachment(record.item.id, file: file) }
        return try localSyncCopy(record).storeAttachment(file)
    }

    /// A file on this machine with an attachment's bytes, and its size.
    func attachmentFile(_ record: ItemRecord, _ sha: String) async throws -> (path: String, size: Int64)? {
        if let sharedSync {
            guard try await sharedSync.store.syncCopy(itemId: record.item.id) != nil else { throw Self.noCopy(record.item.id) }
            return try await sharedSync.attachment(record.item.id, sha)
        }
        guard let path = try localSyncCopy(record).attachmentPath(sha), let size = FileSystem.size(path) else { return nil }
        return (path, size)
    }
}
