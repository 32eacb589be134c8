import Hummingbird
import MapbookEditing
import MapbookPackage
import MapbookPortalAPI

extension PortalRoutes {
    /// The largest sync request read: a changeset of about a million edited features.
    static let syncRequestBytes = 512 << 20

    /// `POST content/items/{id}/sync`: a device's changeset in, the merged changes since its
    /// last sync out (docs/PORTAL.md "Synchronising edits"; the messages in docs/FORMAT.md).
    /// The request is the JSON of `SyncRequest`, as a `sync` file part or form field. Only
    /// users who may edit the item may synchronise: others who can see it are refused (403).
    static func sync(_ router: Router<PortalContext>, _ portal: Portal) {
        endpoint(router, "\(prefix)/content/items/:id/sync", portal, methods: [.post]) { call, context in
            let user = try call.requireUser()
            let record = try portal.readableItem(try context.parameters.require("id"), user)
            guard try portal.canEdit(record, user) else { throw PortalError.forbidden }
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
            return json(call, try await portal.synchronise(record, request, user: user).json)
        }
    }

    /// `POST content/users/{user}/items/{id}/publishSync`: the owner (or an admin) publishes
    /// the synchronised data as the item's new version (`mapbook portal publish --from-sync`).
    static func publishSync(_ router: Router<PortalContext>, _ portal: Portal) {
        for base in ["\(prefix)/content/users/:user", "\(prefix)/content/users/:user/:folder"] {
            endpoint(router, "\(base)/items/:id/publishSync", portal, methods: [.post]) { call, context in
                let record = try portal.ownedItem(call, context, allowUploading: false)
                let (updated, generation) = try await portal.publishSync(record, call: call)
                return json(call, .object([
                    "success": .bool(true), "id": .string(updated.item.id), "generation": .integer(generation),
                    "modified": .integer(updated.item.modified), "size": .integer(updated.item.size),
                ]))
            }
        }
    }
}
