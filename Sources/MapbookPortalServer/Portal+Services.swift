#if canImport(Glibc)
import Glibc
#endif
import MapbookEditing
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport
import NIOPosix

/// The portal's feature services (issue 33, docs/PORTAL.md "Feature services"): each editable
/// package's authoritative copy served at `/rest/services/<package id>/FeatureServer`, with a
/// Feature Service item whose `url` is that address and whose sharing says who may query it
/// (who can see the item) and edit it (its owner, admins and shared update groups, as sync).
///
/// The item's id is derived from the package's (`serviceItemId`), so either finds the other
/// without a lookup table; it is made when a package with editable layers is published.
extension Portal {
    /// The Feature Service item of the package `packageId`.
    static func serviceItemId(_ packageId: String) -> String {
        String(SHA256Digest.hex(of: Array("feature-service:\(packageId)".utf8)).prefix(32))
    }

    static let featureServiceType = "Feature Service"

    /// The address of the package's feature service, as a client at `baseURL` reaches it.
    static func serviceURL(_ packageId: String, baseURL: String) -> String { "\(baseURL)/rest/services/\(packageId)/FeatureServer" }

    /// Whether the package has an authoritative copy (editable layers).
    func hasSyncCopy(_ id: String) async throws -> Bool {
        if let sharedSync { return try await sharedSync.store.syncCopy(itemId: id) != nil }
        return access(syncCopyPath(id), F_OK) == 0
    }

    /// Gives a published package with editable layers its Feature Service item (made with the
    /// package's sharing, in its folder), or removes the item when the package's new version
    /// has none. An existing item keeps its own sharing.
    func updateServiceItem(for record: ItemRecord, baseURL: String) async throws {
        let id = Self.serviceItemId(record.item.id)
        let existing = try await store.item(id)
        guard try await hasSyncCopy(record.item.id) else {
            if existing != nil { try await removeItemsMade(from: record.item.id) }
            return
        }
        let now = TokenService.now()
        var item = existing?.item ?? PortalItem(
            id: id, owner: record.item.owner, orgId: record.item.orgId, created: now, modified: now, title: record.item.title, type: Self.featureServiceType)
        item.typeKeywords = ["ArcGIS Server", "Data", "Feature Access", "Feature Service", "Service", "Hosted Service", Self.sourceKeyword(record.item.id)]
        item.url = Self.serviceURL(record.item.id, baseURL: baseURL)
        item.extent = record.item.extent
        item.modified = max(now, item.modified + 1)
        if existing == nil {
            item.snippet = record.item.snippet
            item.tags = record.item.tags
            item.access = record.item.access
            item.ownerFolder = record.item.ownerFolder
        }
        try await store.saveItem(ItemRecord(item: item, status: .ready, groups: existing?.groups ?? record.groups, sha256: nil))
    }

    /// The package `packageId`'s service and its Feature Service item, for a caller who may
    /// see that item.
    func serviceItem(_ packageId: String, _ user: UserRecord?) async throws -> ItemRecord {
        guard PortalPaths.isItemId(packageId), try await store.item(packageId) != nil, try await store.item(Self.serviceItemId(packageId)) != nil else {
            throw Self.noService(packageId)
        }
        do {
            return try await readableItem(Self.serviceItemId(packageId), user)
        } catch let error as PortalError where error.messageCode == PortalError.itemNotFound("").messageCode {
            // Signed in, but not shared with: refused as ArcGIS Server refuses it.
            throw PortalError.forbidden
        }
    }

    /// A refused service request as the API's error: the status, what to change, and the
    /// parameter concerned.
    static func serviceError(_ error: FeatureServiceError) -> PortalError {
        PortalError(code: error.status, message: error.message, details: error.parameter.isEmpty ? [] : [error.parameter])
    }

    static func noService(_ name: String) -> PortalError {
        PortalError(code: 404, message: "Service \(name)/FeatureServer not found.", details: [name])
    }

    /// Runs `body` on the package's copy as a feature service, off the cooperative pool.
    func withFeatureService<T: Sendable>(_ packageId: String, _ body: @escaping @Sendable (FeatureService) throws -> T) async throws -> T {
        let path: String?
        if let sharedSync {
            path = try await sharedSync.current(packageId)
        } else {
            let local = syncCopyPath(packageId)
            path = access(local, F_OK) == 0 ? local : nil
        }
        guard let path else { throw Self.noService(packageId) }
        do {
            let pool = featureServices
            return try await NIOThreadPool.singleton.runIfActive { try pool.with(path, body) }
        } catch let error as FeatureServiceError {
            throw Self.serviceError(error)
        }
    }

    /// The table of an editable layer of the service; a layer served to read only is refused.
    func editableTable(_ packageId: String, layer: String) async throws -> String {
        try await withFeatureService(packageId) { service in
            let found = try service.layer(layer)
            guard found.isEditable else { throw FeatureServiceError(.unsupported, "\(found.title) is read-only (its capabilities are Query)") }
            return found.name
        }
    }

    /// Changes the package's copy with `body`, on whichever store holds it: in SQLite on this
    /// machine, or under the item's lock in the bucket. Refusals become the API's errors.
    func changeService<T: Sendable>(
        _ packageId: String, _ body: @escaping @Sendable (AuthoritativeCopy) throws -> T, shared finish: @escaping @Sendable (T) async throws -> Void = { _ in }
    ) async throws -> T {
        do {
            if let sharedSync { return try await sharedSync.change(packageId, body, finish: finish) }
            let path = syncCopyPath(packageId)
            guard access(path, F_OK) == 0 else { throw Self.noService(packageId) }
            return try await NIOThreadPool.singleton.runIfActive { try body(try AuthoritativeCopy(path: path)) }
        } catch let error as SyncError {
            throw PortalError(code: 409, messageCode: "SYNC_0002", message: error.message, details: [error.kind.rawValue])
        } catch let error as FeatureServiceError {
            throw Self.serviceError(error)
        }
    }

    /// Applies online edits to the package's copy as `user`: recorded with a generation, as a
    /// sync is.
    func applyEdits(_ packageId: String, layer table: String, _ edits: FeatureEdits, user: UserRecord) async throws -> FeatureEditResults {
        let now = TokenService.now() / 1000
        return try await changeService(packageId) { copy in try copy.applyEdits(edits, layer: table, user: user.username, now: now) }
    }

    /// Attaches an uploaded file to a feature; with several processes the bytes go to the
    /// bucket too, where every process (and every device's sync) finds them.
    func addAttachment(_ packageId: String, layer table: String, featureId: Int64, file: UploadedFile, contentType: String, user: UserRecord) async throws
        -> FeatureEditResults.Result
    {
        let now = TokenService.now() / 1000, path = file.path, name = file.name
        let sharedSync = self.sharedSync
        let (result, _, _) = try await changeService(packageId) { copy in
            try copy.addAttachment(layer: table, featureId: featureId, file: path, name: name, contentType: contentType, user: user.username, now: now)
        } shared: { added in
            // Still under the item's lock: a device synchronising through another process finds it.
            guard let sharedSync else { return }
            try await sharedSync.files.putObject(
                itemId: packageId, name: SharedSyncCopies.attachmentName(added.sha256), from: sharedSync.folder(packageId) + "/attachments/" + added.sha256)
        }
        return result
    }
}
