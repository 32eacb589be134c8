import MapbookEditing
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Republishing over field work (issue 35, docs/PORTAL.md "Republishing an editable
/// package"): a new version uploaded for an editable package whose copy devices have
/// synchronised to is merged into the copy (`AuthoritativeCopy.republish`, the version it
/// replaces as the base), then the merged data is published as the item's next version, so
/// devices receive the owner's changes by their next sync or update and nothing entered in
/// the field is lost. The conflicts go to the publish result, the item page and `mapbook
/// portal conflicts ITEM`.
extension Portal {
    /// Whether a new version of the item merges into its copy: it has one, synchronised to.
    func mergesIntoCopy(_ record: ItemRecord) async throws -> Bool {
        guard Self.areaSource(record) == nil else { return false }
        if let sharedSync { return (try await sharedSync.store.syncCopy(itemId: record.item.id)?.generation ?? 0) > 0 }
        let path = syncCopyPath(record.item.id)
        guard access(path, F_OK) == 0 else { return false }
        return try await NIOThreadPool.singleton.runIfActive { try AuthoritativeCopy(path: path).generation() > 0 }
    }

    /// Merges the owner's changes from `previous` (the version published before) to the new
    /// version at `newPath` into the item's copy, as `user`; refused (400, the differences
    /// named) when the new version changes the editable layers' schema beyond adding fields
    /// and coded values. The merge is kept as a sync of the item (its page, `conflicts`).
    func republish(_ record: ItemRecord, previous: PreviousVersion, newPath: String, call: PortalRequest) async throws -> RepublishMerge {
        let user = try call.requireUser().username
        guard let stored = try await files.dataFile(itemId: record.item.id, version: previous.version) else {
            throw PortalError(code: 500, message: "The version of item \(record.item.id) the new one replaces cannot be found.")
        }
        let now = TokenService.now() / 1000, changesetId = "republish-" + Self.newVersion()
        let merge: @Sendable (AuthoritativeCopy, String) throws -> RepublishMerge = { copy, basePath in
            let base = try MobileMapPackage(path: basePath), ours = try MobileMapPackage(path: newPath)
            guard let baseData = base.dataEntry, let oursData = ours.dataEntry else {
                throw SyncError(kind: .schemaMismatch, message: "the new version has no data.gpkg")
            }
            return try copy.republish(base: try base.database(baseData), ours: try ours.database(oursData), user: user, now: now, changesetId: changesetId)
        }
        let result: RepublishMerge
        do {
            result = try await files.withLocalCopy(stored) { basePath in
                if let sharedSync { return try await sharedSync.change(record.item.id) { try merge($0, basePath) } }
                let path = syncCopyPath(record.item.id)
                return try await NIOThreadPool.singleton.runIfActive { try merge(try AuthoritativeCopy(path: path), basePath) }
            }
        } catch let error as SyncError {
            throw PortalError(code: 400, messageCode: "MAPBOOK_REPUBLISH_SCHEMA", message: "The new version cannot be merged with the field's edits: \(error.message)", details: [error.kind.rawValue])
        }
        if result.generation > 0 {
            let response = SyncResponse(generation: result.generation, applied: true, changes: result.changes, conflicts: result.conflicts, rows: [])
            await noteSync(call, record, replica: AuthoritativeCopy.republishReplica, response)
        }
        return result
    }

    /// A merge as the publish result gives it (`mapbookMerge`).
    static func mergeJSON(_ merge: RepublishMerge) -> JSONValue {
        .object([
            "generation": .integer(merge.generation), "changes": .int(merge.changes),
            "conflicts": .array(merge.conflicts.map(\.json)),
            "addedFields": .array(merge.addedFields.map { .string($0) }), "addedDomainValues": .array(merge.addedDomainValues.map { .string($0) }),
        ])
    }

    /// The conflicts of the item's syncs and republishes, newest first, for its owner.
    func conflicts(_ record: ItemRecord) async throws -> JSONValue {
        let syncs = try await store.replicaSyncs(itemId: record.item.id).filter { !$0.conflicts.isEmpty }.sorted { $0.at > $1.at }
        return .object([
            "itemId": .string(record.item.id), "title": .string(record.item.title),
            "syncs": .array(syncs.map { sync in
                .object([
                    "replica": .string(sync.replica), "username": .string(sync.username), "at": .integer(sync.at), "generation": .integer(sync.generation),
                    "republish": .bool(sync.replica == AuthoritativeCopy.republishReplica),
                    "conflicts": .array(sync.conflicts.map { c in
                        .object([
                            "layer": .string(c.layer), "globalid": .string(c.globalid), "column": .string(c.column), "base": .string(c.base),
                            "theirs": .string(c.theirs), "ours": .string(c.ours), "outcome": .string(c.outcome),
                        ])
                    }),
                ])
            }),
        ])
    }
}
