import MapbookPackage
import MapbookSupport
import MapbookLibrary
import MapbookPortalAPI

/// Publishes a package to the signed-in user's content: a new item the first time, a new
/// version of the same item afterwards (which bumps its `modified`, so devices see an update).
///
/// The item is found again by the package's GUID (the `.info`'s `guid`), which publishing
/// puts on the item as the type keyword `mmpkGuid:<guid>`: renaming the file or the title does
/// not make a second item. Files larger than `partSize` are sent in parts (addPart, commit,
/// status), as ArcGIS Pro does for large packages; smaller ones in one request. The package
/// is not validated here: the caller does that first.
public struct PackagePublisher: Sendable {
    public let client: PortalClient
    /// The size of one part, and the size above which a file goes in parts (50 MiB, as the
    /// `arcgis` client uses for files of 100 MiB to 1 GiB).
    public var partSize: Int64 = 50 << 20

    public init(client: PortalClient) {
        self.client = client
    }

    /// What to publish beyond the file.
    public struct Options: Sendable {
        /// The item's title; nil lets the portal take the package's.
        public var title: String?
        /// Who sees the item; nil leaves it as it is (a new item is private).
        public var share: ShareLevel?
        /// The owner's folder (title or id) for a new item, created when missing.
        public var folder: String?

        public init(title: String? = nil, share: ShareLevel? = nil, folder: String? = nil) {
            self.title = title
            self.share = share
            self.folder = folder
        }
    }

    public enum Action: String, Sendable {
        case added, updated
    }

    public struct Outcome: Sendable {
        public var item: PortalItem
        public var action: Action
        /// For a new version of an editable package devices synchronise to, how it was merged
        /// with the field's edits, as the portal said (`mapbookMerge`: generation, changes,
        /// conflicts, addedFields, addedDomainValues).
        public var merge: JSONObject?

        /// As `mapbook portal publish --json` prints it: the item, what was done, its date,
        /// sharing and size, and the merge.
        public var jsonValue: JSONValue {
            var object: JSONObject = [
                "itemId": .string(item.id), "title": .string(item.title), "action": .string(action.rawValue),
                "modified": .integer(item.modified), "access": .string(item.access.rawValue), "size": .integer(item.size),
            ]
            if let merge { object["merge"] = .object(merge) }
            return .object(object)
        }

        /// "Added 'Title' (12 MB, private, modified 2026-11-27 08:00 UTC)", and what a merge did.
        public var line: String {
            var line = "\(action == .added ? "Added" : "Updated") '\(item.title)' (\(Format.bytes(item.size)), \(item.access.rawValue), modified \(ISODate.formatMinutes(milliseconds: item.modified)) UTC)"
            if let merge {
                let changes = merge["changes"]?.int64Value ?? 0, conflicts = merge["conflicts"]?.arrayValue?.count ?? 0
                let fields = (merge["addedFields"]?.arrayValue ?? []).compactMap(\.stringValue)
                line += "\nMerged with the field's synchronised edits: \(Format.count(changes, "feature")) changed by this version"
                if !fields.isEmpty { line += ", fields added: \(fields.joined(separator: ", "))" }
                line += conflicts == 0 ? "; no conflicts" : "; \(Format.count(conflicts, "conflict")) (mapbook portal conflicts \(item.id))"
            }
            return line
        }
    }

    /// The type keyword that ties an item to the package with `guid`.
    public static func guidKeyword(_ guid: String) -> String { "mmpkGuid:\(guid)" }

    /// Uploads the package at `path`, whose `.info` says `manifest`, and shares it.
    /// `progress` is called with the bytes uploaded and the file's size.
    public func publish(path: String, manifest: PackageManifest, options: Options, progress: (@Sendable (Int64, Int64) -> Void)? = nil) async throws -> Outcome {
        guard let credential = client.credential else {
            throw PortalClientError(
                .signInRequired, url: client.portalURL, message: "publishing needs a signed-in user: `mapbook portal signin \(client.portalURL) --user NAME`")
        }
        guard let guid = manifest.guid, !guid.isEmpty else {
            throw PortalClientError(.usage, url: path, message: "the package's .info has no guid, so a later version could not find this item; rebuild it with `mapbook create`")
        }
        guard let size = FileSystem.size(path) else {
            throw PortalClientError(.usage, url: path, message: "cannot read the package")
        }
        let user = credential.username
        let keyword = Self.guidKeyword(guid)
        let existing = try await find(keyword: keyword, owner: user)

        let fileName = FileSystem.lastComponent(path)
        var keywords = existing?.typeKeywords ?? []
        for k in (manifest.typeKeywords ?? []) + [keyword] where !keywords.contains(where: { $0.lowercased() == k.lowercased() }) {
            keywords.append(k)
        }
        // The API takes a comma-separated list; a keyword with a comma in it cannot be sent.
        var fields: [(String, String)] = [
            ("type", PackageManifest.mobileMapPackageType), ("typeKeywords", keywords.filter { !$0.contains(",") }.joined(separator: ",")),
        ]
        if let title = options.title { fields.append(("title", title)) }

        let userPath = "content/users/\(FormEncoding.percentEncode(user))"
        let itemId: String
        let action: Action
        var merge: JSONObject?
        let inParts = size > partSize
        /// Sends the item's fields to `operation` under `base` with the package itself or, for
        /// an upload in parts, only its file name (the parts follow).
        func send(_ operation: String, under base: String) async throws -> JSONObject {
            let body: PortalClient.Body
            if inParts {
                body = .form(fields + [("multipart", "true"), ("fileName", fileName)])
            } else {
                body = .multipart(MultipartForm(
                    fields: fields, file: .init(field: "file", fileName: fileName, path: path, offset: 0, length: size), progress: Self.fileProgress(progress, offset: 0, size: size)))
            }
            return try expectSuccess(try await client.call("\(base)/\(operation)", method: .POST, body: body), operation)
        }
        if let existing {
            action = .updated
            itemId = existing.id
            let itemPath = "\(userPath)\(existing.ownerFolder.map { "/\($0)" } ?? "")/items/\(existing.id)"
            let answer = try await send("update", under: itemPath)
            merge = answer["mapbookMerge"]?.objectValue
            if inParts {
                let committed = try await uploadParts(path: path, size: size, fileName: fileName, itemPath: itemPath, userPath: userPath, itemId: itemId, fields: fields, progress: progress)
                merge = committed["mapbookMerge"]?.objectValue
            }
        } else {
            action = .added
            let folder = try await folderId(options.folder, userPath: userPath)
            let base = "\(userPath)\(folder.map { "/\($0)" } ?? "")"
            let answer = try await send("addItem", under: base)
            guard let id = answer.string("id") ?? answer.string("itemId") else {
                throw PortalClientError(.badResponse, url: "\(client.restURL)/\(base)/addItem", message: "the portal added an item but did not say its id")
            }
            itemId = id
            if inParts {
                _ = try await uploadParts(
                    path: path, size: size, fileName: fileName, itemPath: "\(base)/items/\(id)", userPath: userPath, itemId: id, fields: fields, progress: progress)
            }
        }
        if let share = options.share {
            try await self.share(itemId, level: share, userPath: userPath)
        }
        return Outcome(item: try await client.item(itemId), action: action, merge: merge)
    }

    /// The user's item for the package: searched by the GUID type keyword, then checked
    /// exactly (a search matches words, and may match a keyword that only contains ours).
    func find(keyword: String, owner: String) async throws -> PortalItem? {
        let q = "owner:\"\(owner)\" AND typekeywords:\"\(keyword)\""
        let found = try await client.search(q, maximum: 100).items.filter { item in
            item.owner.lowercased() == owner.lowercased() && item.typeKeywords.contains { $0.lowercased() == keyword.lowercased() }
        }
        // Two items for one package can only be made by hand; update the latest.
        return found.max { ($0.modified, $0.id) < ($1.modified, $1.id) }
    }

    /// The id of the owner's folder with this title or id, created when missing; nil for the root.
    func folderId(_ folder: String?, userPath: String) async throws -> String? {
        guard let folder, !folder.isEmpty, folder != "/" else { return nil }
        let content = try await client.call(userPath, [("num", "1")])
        for f in content.array("folders") ?? [] {
            guard let o = f.objectValue, let id = o.string("id") else { continue }
            if id == folder || o.string("title")?.lowercased() == folder.lowercased() { return id }
        }
        let made = try await expectSuccess(client.call("\(userPath)/createFolder", method: .POST, body: .form([("title", folder)])), "createFolder")
        guard let id = made.object("folder")?.string("id") else {
            throw PortalClientError(.badResponse, url: "\(client.restURL)/\(userPath)/createFolder", message: "the portal made the folder but did not say its id")
        }
        return id
    }

    /// addPart for each `partSize` piece, commit, then status until the portal has the file.
    /// Returns the commit's answer.
    func uploadParts(
        path: String, size: Int64, fileName: String, itemPath: String, userPath: String, itemId: String, fields: [(String, String)],
        progress: (@Sendable (Int64, Int64) -> Void)?
    ) async throws -> JSONObject {
        let parts = Int((size + partSize - 1) / partSize)
        for number in 1...max(parts, 1) {
            let offset = Int64(number - 1) * partSize
            let length = min(partSize, size - offset)
            let form = MultipartForm(
                fields: [], file: .init(field: "file", fileName: fileName, path: path, offset: offset, length: length),
                progress: Self.fileProgress(progress, offset: offset, size: size))
            _ = try await expectSuccess(
                client.call("\(itemPath)/addPart", method: .POST, [("partNum", String(number))], body: .multipart(form)), "addPart \(number) of \(parts)")
        }
        let committed = try await expectSuccess(client.call("\(itemPath)/commit", method: .POST, body: .form(fields + [("id", itemId)])), "commit")
        // The portal may assemble the parts in the background: wait for it, a bounded while.
        var delay = 1
        for _ in 0..<60 {
            let status = try await client.call("\(userPath)/items/\(itemId)/status")
            switch status.string("status")?.lowercased() ?? "" {
            case "completed":
                return committed
            case let s where s.contains("fail"):
                throw PortalClientError(
                    .transfer, url: "\(client.restURL)/\(userPath)/items/\(itemId)/status",
                    message: "the portal could not put the parts together (\(status.string("statusMessage") ?? s)); publish again")
            default:
                try await Task.sleep(for: .seconds(delay))
                delay = min(delay * 2, 10)
            }
        }
        throw PortalClientError(
            .transfer, url: "\(client.restURL)/\(userPath)/items/\(itemId)/status", message: "the portal is still processing the upload after several minutes; check the item later")
    }

    /// Sets who sees the item (`shareItems` with `everyone` and `org`; groups are kept).
    func share(_ itemId: String, level: ShareLevel, userPath: String) async throws {
        let fields: [(String, String)] = [
            ("items", itemId), ("everyone", level == .public ? "true" : "false"), ("org", level == .org || level == .public ? "true" : "false"),
            ("confirmItemControl", "true"),
        ]
        let answer = try await client.call("\(userPath)/shareItems", method: .POST, body: .form(fields))
        let result = answer.array("results")?.first?.objectValue
        if let result, result["success"]?.boolValue == false {
            let error = result.object("error").flatMap { PortalError(response: .object(["error": .object($0)])) }
            throw error ?? PortalError(code: 400, message: "The portal did not share item \(itemId).")
        }
    }

    /// A part's progress (bytes of this request) as the file's: `offset` plus those, of `size`.
    static func fileProgress(_ progress: (@Sendable (Int64, Int64) -> Void)?, offset: Int64, size: Int64) -> (@Sendable (Int64) -> Void)? {
        guard let progress else { return nil }
        return { sent in progress(offset + sent, size) }
    }

    /// The answer, unless it says `success: false`.
    func expectSuccess(_ answer: JSONObject, _ operation: String) throws -> JSONObject {
        if answer["success"]?.boolValue == false {
            throw PortalError(code: 400, message: "The portal refused \(operation).", details: [JSONWriter.string(.object(answer), style: .compact)])
        }
        return answer
    }
}
