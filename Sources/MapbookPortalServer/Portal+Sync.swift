#if canImport(Glibc)
import Glibc
#endif
import MapbookEditing
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
    /// version of the item keeps the copy it has: the edits synchronised so far stay, and
    /// `publishSync` is how they reach a version.
    func makeSyncCopy(_ record: ItemRecord) throws {
        let path = syncCopyPath(record.item.id)
        guard access(path, F_OK) != 0, let file = files.dataFile(itemId: record.item.id),
            let package = try? MobileMapPackage(path: file.path)
        else { return }
        try Disk.makeDirectory(configuration.dataDirectory + "/sync")
        try Disk.makeDirectory(syncFolder(record.item.id))
        if try !AuthoritativeCopy.make(from: package, at: path) { rmdir(syncFolder(record.item.id)) }
    }

    /// Removes an item: its record, its files and its authoritative copy.
    func removeItem(_ id: String) throws {
        try store.deleteItem(id)
        files.remove(itemId: id)
        FileSystem.removeTree(syncFolder(id))
    }

    /// Whether `user` may change the item's data by synchronising: its owner, an admin, or a
    /// member of a group the item is shared with whose members may update its items
    /// (ArcGIS's shared update groups, capability `updateitemcontrol`).
    func canEdit(_ record: ItemRecord, _ user: UserRecord?) throws -> Bool {
        guard let user else { return false }
        if canWrite(record, user) { return true }
        let name = user.username.lowercased()
        return try store.groups().contains { group in
            record.groups.contains(group.id) && group.capabilities.contains(GroupRecord.updateCapability)
                && (group.members.contains { $0.lowercased() == name } || group.owner.lowercased() == name)
        }
    }

    /// Applies a device's sync request to the item's copy, as `user`.
    func synchronise(_ record: ItemRecord, _ request: SyncRequest, user: UserRecord) async throws -> SyncResponse {
        let path = syncCopyPath(record.item.id)
        guard access(path, F_OK) == 0 else {
            throw PortalError(code: 400, messageCode: "SYNC_0001", message: "Item \(record.item.id) has no editable layers to synchronise.", details: [record.item.id])
        }
        let now = TokenService.now() / 1000
        do {
            return try await NIOThreadPool.singleton.runIfActive {
                try AuthoritativeCopy(path: path).synchronise(request, user: user.username, now: now)
            }
        } catch let error as SyncError {
            throw PortalError(code: 409, messageCode: "SYNC_0002", message: error.message, details: [error.kind.rawValue])
        }
    }
}
