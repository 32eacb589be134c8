import Hummingbird
import MapbookEditing
import MapbookPortalAPI
import MapbookSupport

extension PortalRoutes {
    /// The largest sync request read: a changeset of about a million edited features.
    static let syncRequestBytes = 512 << 20

    /// `POST content/items/{id}/sync`: a device's changeset in, the merged changes since its
    /// last sync out (docs/PORTAL.md "Synchronising edits"; the messages in docs/FORMAT.md).
    /// The request is the JSON of `SyncRequest`, as a `sync` file part or form field. Only
    /// users who may edit the item may synchronise: others who can see it are refused (403).
    static func sync(_ router: Router<PortalContext>, _ portal: Portal) {
        endpoint(router, "\(prefix)/content/items/:id/sync", portal, methods: [.post]) { call, context in
            let (record, user) = try await editableItem(call, context, portal)
            let bytes: [UInt8]
            if let file = call.parameters.files["sync"] {
                guard file.size <= Int64(syncRequestBytes) else { throw PortalError.badRequest("The sync request is larger than \(syncRequestBytes >> 20) MB; synchronise more often.") }
                bytes = try portal.readSmallFile(file.path, limit: syncRequestBytes)
            } else if let text = call["sync"] {
                bytes = Array(text.utf8)
            } else {
                throw PortalError.badRequest("A sync needs its request (the sync parameter).")
            }
            let request: SyncRequest
            do {
                request = try SyncRequest(json: try JSONParser.parse(bytes), source: "the sync request")
            } catch let error as SyncError {
                throw PortalError.badRequest(error.message)
            } catch {
                throw PortalError.badRequest("The sync request is not JSON: \(error)")
            }
            let response = try await portal.synchronise(record, request, user: user)
            await portal.noteSync(call, record, replica: request.replica, response)
            return json(call, response.json)
        }

        // Attachments travel by SHA-256, before a sync (up) and after it (down).
        endpoint(router, "\(prefix)/content/items/:id/sync/attachments/missing", portal, methods: [.post]) { call, context in
            let (record, _) = try await editableItem(call, context, portal)
            let hashes = list(call["hashes"])
            return json(call, .object(["missing": .array(try await portal.missingAttachments(record, hashes).map { .string($0) })]))
        }
        endpoint(router, "\(prefix)/content/items/:id/sync/attachments", portal, methods: [.post]) { call, context in
            let (record, _) = try await editableItem(call, context, portal)
            guard let file = call.parameters.files["file"] else { throw PortalError.badRequest("An attachment upload needs its file (the file part).") }
            do {
                let sha = try await portal.storeAttachment(record, file: file.path)
                return json(call, .object(["success": .bool(true), "sha256": .string(sha), "size": .integer(file.size)]))
            } catch let error as SyncError {
                throw PortalError(code: 413, messageCode: "SYNC_0003", message: error.message)
            }
        }
        endpoint(router, "\(prefix)/content/items/:id/sync/attachments/:sha", portal, methods: [.get, .head]) { call, context in
            let (record, _) = try await editableItem(call, context, portal)
            let sha = try context.parameters.require("sha")
            guard let (path, size) = try await portal.attachmentFile(record, sha) else {
                throw PortalError(code: 404, messageCode: "SYNC_0004", message: "No attachment has that SHA-256.", details: [sha])
            }
            let file = StoredFile(location: path, name: sha, size: size)
            return FileResponse.send(file, request: call.request, etag: sha, modified: record.item.modified, contentType: "application/octet-stream", attachment: true) { range, each in
                try await DiskItemFileStore.read(path: path, size: size, range: range, each)
            }
        }
    }

    /// The item of a sync request and its caller, who must be allowed to edit it. For a map
    /// area taken offline, the package it came from, whose copy it synchronises with and
    /// which the caller must be allowed to edit.
    static func editableItem(_ call: PortalRequest, _ context: PortalContext, _ portal: Portal) async throws -> (ItemRecord, UserRecord) {
        let user = try call.requireUser()
        let record = try await portal.syncTarget(try await portal.readableItem(try context.parameters.require("id"), user))
        guard try await portal.canEdit(record, user) else { throw PortalError.forbidden }
        return (record, user)
    }

    /// `POST content/users/{user}/items/{id}/publishSync`: the owner (or an admin) publishes
    /// the synchronised data as the item's new version (`mapbook portal publish --from-sync`);
    /// `content/users/{user}/items/{id}/conflicts` lists the conflicts its syncs met.
    static func publishSync(_ router: Router<PortalContext>, _ portal: Portal) {
        for base in ["\(prefix)/content/users/:user", "\(prefix)/content/users/:user/:folder"] {
            endpoint(router, "\(base)/items/:id/publishSync", portal, methods: [.post]) { call, context in
                let record = try await portal.ownedItem(call, context, allowUploading: false)
                let (updated, generation) = try await portal.publishSync(record, call: call)
                return json(call, .object([
                    "success": .bool(true), "id": .string(updated.item.id), "generation": .integer(generation),
                    "modified": .integer(updated.item.modified), "size": .integer(updated.item.size),
                ]))
            }
            // The conflicts of the item's syncs and republishes (`mapbook portal conflicts ITEM`).
            endpoint(router, "\(base)/items/:id/conflicts", portal) { call, context in
                json(call, try await portal.conflicts(try await portal.ownedItem(call, context, allowUploading: false)))
            }
        }
    }
}
