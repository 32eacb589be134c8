import MapbookPackage
import MapbookPortalAPI
import MapbookSupport

extension PortalClient {
    /// Sends a sync request (the JSON in `requestFile`, docs/FORMAT.md "Synchronisation") to
    /// the item's authoritative copy and returns the portal's answer. The request goes as a
    /// file part, so a large changeset is streamed, not held in a form field.
    public func sync(itemId: String, requestFile: String) async throws -> JSONObject {
        guard let size = FileSystem.size(requestFile) else {
            throw PortalClientError(.transfer, url: requestFile, message: "the sync request cannot be read")
        }
        let form = MultipartForm(fields: [], file: .init(field: "sync", fileName: "sync.json", path: requestFile, offset: 0, length: size))
        return try await call("content/items/\(itemId)/sync", method: .POST, body: .multipart(form))
    }
}

extension PortalClient {
    /// Asks the portal to publish the item's synchronised data as its package's new version
    /// (the owner or an admin only). Returns the portal's answer: `id`, `generation`,
    /// `modified`, `size`.
    public func publishSync(itemId: String) async throws -> JSONObject {
        let item = try await item(itemId)
        return try await call("content/users/\(FormEncoding.percentEncode(item.owner))/items/\(itemId)/publishSync", method: .POST, body: .form([]))
    }
}
