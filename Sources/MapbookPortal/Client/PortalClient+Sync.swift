import AsyncHTTPClient
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
    public func publishSync(itemId: String) async throws -> SyncPublication {
        let item = try await item(itemId)
        let answer = try await call("content/users/\(FormEncoding.percentEncode(item.owner))/items/\(itemId)/publishSync", method: .POST, body: .form([]))
        return SyncPublication(itemId: itemId, generation: answer.int64("generation") ?? 0, modified: answer.int64("modified") ?? 0, size: answer.int64("size") ?? 0)
    }
}

/// A new version the portal made of a package from its synchronised edits.
public struct SyncPublication: Sendable {
    public var itemId: String
    public var generation: Int64
    public var modified: Int64
    public var size: Int64

    /// As `mapbook portal publish --from-sync --json` prints it.
    public var jsonValue: JSONValue {
        .object(["itemId": .string(itemId), "action": .string("updated"), "generation": .integer(generation), "modified": .integer(modified), "size": .integer(size)])
    }

    public var line: String {
        "Published the edits synchronised to \(itemId) (generation \(generation)) as its new version (\(Format.bytes(size)), modified \(ISODate.formatMinutes(milliseconds: modified)) UTC)"
    }
}

extension PortalClient {
    /// Which of the attachments `hashes` (SHA-256) the item's portal copy lacks.
    public func missingAttachments(itemId: String, hashes: [String]) async throws -> [String] {
        guard !hashes.isEmpty else { return [] }
        let answer = try await call("content/items/\(itemId)/sync/attachments/missing", method: .POST, body: .form([("hashes", hashes.joined(separator: ","))]))
        return (answer["missing"]?.arrayValue ?? []).compactMap(\.stringValue)
    }

    /// Uploads the attachment in `file` to the item's portal copy; returns its SHA-256 as the
    /// portal computed it.
    public func uploadAttachment(itemId: String, file: String) async throws -> String {
        guard let size = FileSystem.size(file) else { throw PortalClientError(.transfer, url: file, message: "the attachment cannot be read") }
        let form = MultipartForm(fields: [], file: .init(field: "file", fileName: "attachment", path: file, offset: 0, length: size))
        let answer = try await call("content/items/\(itemId)/sync/attachments", method: .POST, body: .multipart(form))
        guard let sha = answer.string("sha256") else { throw PortalClientError(.badResponse, url: restURL, message: "the portal did not say what it stored") }
        return sha
    }

    /// The bytes of the attachment with this SHA-256, checked against it.
    public func downloadAttachment(itemId: String, sha256: String, limit: Int = 1 << 30) async throws -> [UInt8] {
        let url = "\(restURL)/content/items/\(itemId)/sync/attachments/\(sha256)"
        let response = try await send(HTTPClientRequest(url: url), credential: try await currentCredential())
        let bytes = try await Self.collect(response, url: url, limit: limit)
        guard response.status.code == 200 else {
            throw (try? Self.parseJSON(bytes, status: response.status, url: url)).flatMap { PortalError(response: $0) }
                ?? PortalClientError(.badResponse, url: Self.shown(url), message: "answered HTTP \(response.status.code)")
        }
        guard SHA256Digest.hex(of: bytes) == sha256 else {
            throw PortalClientError(.transfer, url: Self.shown(url), message: "the attachment's bytes do not match its SHA-256")
        }
        return bytes
    }
}
