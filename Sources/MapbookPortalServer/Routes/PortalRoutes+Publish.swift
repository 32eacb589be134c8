#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import MapbookEditing
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport
import NIOPosix

extension PortalRoutes {
    /// An owner's operations: add (single or in parts), commit, status, update, delete,
    /// share, folders. Every path also works without the folder segment, and `status` by GET
    /// and POST, as the `arcgis` client uses both.
    static func publish(_ router: Router<PortalContext>, _ portal: Portal) {
        for base in ["\(prefix)/content/users/:user", "\(prefix)/content/users/:user/:folder"] {
            endpoint(router, "\(base)/addItem", portal, methods: [.post]) { call, context in
                let owner = try await portal.owner(call, context)
                let folder = try await portal.folder(context.parameters.get("folder"), owner: owner)
                return try await addItem(call, portal, owner: owner, folder: folder)
            }
            endpoint(router, "\(base)/items/:id/addPart", portal, methods: [.post]) { call, context in
                // A new item waits for its parts; a ready one takes them as its next version
                // (update with multipart=true, then commit), which stays readable meanwhile.
                let record = try await portal.ownedItem(call, context, allowUploading: true)
                guard let number = call["partNum"].flatMap({ Int($0) }), number >= 1, number <= 10_000 else {
                    throw PortalError.badRequest("partNum must be a number from 1 to 10000.")
                }
                guard let file = call.parameters.files["file"] else { throw PortalError.badRequest("The part has no file.") }
                try await portal.files.putPart(itemId: record.item.id, number: number, from: file.path)
                try await portal.store.saveUploadPart(itemId: record.item.id, UploadPart(number: number, size: file.size))
                return json(call, .object(["success": .bool(true), "itemId": .string(record.item.id), "partNum": .integer(Int64(number))]))
            }
            endpoint(router, "\(base)/items/:id/commit", portal, methods: [.post]) { call, context in
                let record = try await portal.ownedItem(call, context, allowUploading: true)
                let (committed, merge) = try await commitParts(call, portal, record)
                var answer: JSONObject = ["success": .bool(true), "id": .string(committed.item.id), "itemId": .string(committed.item.id)]
                if let merge { answer["mapbookMerge"] = Portal.mergeJSON(merge) }
                return json(call, .object(answer))
            }
            endpoint(router, "\(base)/items/:id/status", portal) { call, context in
                let record = try await portal.ownedItem(call, context, allowUploading: true)
                let status = record.status == .ready ? "completed" : "partial"
                return json(call, .object([
                    "status": .string(status), "statusMessage": .string(status), "itemId": .string(record.item.id),
                    "id": record.status == .ready ? .string(record.item.id) : .null,
                ]))
            }
            endpoint(router, "\(base)/items/:id/update", portal, methods: [.post]) { call, context in
                let record = try await portal.ownedItem(call, context, allowUploading: false)
                return try await updateItem(call, portal, record)
            }
            endpoint(router, "\(base)/items/:id/delete", portal, methods: [.post]) { call, context in
                let record = try await portal.ownedItem(call, context, allowUploading: true)
                try await portal.removeItem(record.item.id)
                return json(call, .object(["success": .bool(true), "itemId": .string(record.item.id)]))
            }
            for verb in ["share", "unshare"] {
                endpoint(router, "\(base)/items/:id/\(verb)", portal, methods: [.post]) { call, context in
                    let record = try await portal.ownedItem(call, context, allowUploading: false)
                    return json(call, try await share(call, portal, record, unshare: verb == "unshare"))
                }
            }
        }
        for verb in ["share", "unshare"] {
            endpoint(router, "\(prefix)/content/items/:id/\(verb)", portal, methods: [.post]) { call, context in
                let user = try call.requireUser()
                let record = try await portal.readableItem(try context.parameters.require("id"), user)
                guard portal.canWrite(record, user) else { throw PortalError.forbidden }
                return json(call, try await share(call, portal, record, unshare: verb == "unshare"))
            }
            endpoint(router, "\(prefix)/content/users/:user/\(verb)Items", portal, methods: [.post]) { call, context in
                let user = try call.requireUser()
                var results: [JSONValue] = []
                for id in list(call["items"]) {
                    do {
                        let record = try await portal.readableItem(id, user)
                        guard portal.canWrite(record, user) else { throw PortalError.forbidden }
                        var result = try await share(call, portal, record, unshare: verb == "unshare").objectValue ?? [:]
                        result["success"] = .bool(true)
                        results.append(.object(result))
                    } catch let error as PortalError {
                        results.append(.object(["itemId": .string(id), "success": .bool(false), "error": error.jsonValue.objectValue?["error"] ?? .null]))
                    }
                }
                _ = context
                return json(call, .object(["results": .array(results)]))
            }
        }
        endpoint(router, "\(prefix)/content/items/:id/groups", portal) { call, context in
            let user = try call.requireUser()
            let record = try await portal.readableItem(try context.parameters.require("id"), user)
            var admin: [JSONValue] = [], member: [JSONValue] = [], other: [JSONValue] = []
            for id in record.groups {
                guard let group = try await portal.store.group(id), portal.canSee(group, user) else { continue }
                let json = groupJSON(group, user: user, orgId: portal.orgId)
                if group.owner.lowercased() == user.username.lowercased() || user.isAdmin {
                    admin.append(json)
                } else if group.members.contains(where: { $0.lowercased() == user.username.lowercased() }) {
                    member.append(json)
                } else {
                    other.append(json)
                }
            }
            return json(call, .object(["admin": .array(admin), "member": .array(member), "other": .array(other)]))
        }
        endpoint(router, "\(prefix)/content/users/:user/createFolder", portal, methods: [.post]) { call, context in
            let owner = try await portal.owner(call, context)
            guard let title = call["title"], PortalPaths.isFileName(title), title.utf8.count <= 100 else {
                throw PortalError.badRequest("A folder needs a title (a name without '/', at most 100 bytes).")
            }
            guard !(try await portal.store.folders(owner: owner.username).contains(where: { $0.title.lowercased() == title.lowercased() })) else {
                throw PortalError.badRequest("Folder '\(title)' already exists.", details: [title])
            }
            let folder = FolderRecord(id: TokenService.newId(), owner: owner.username, title: title, created: TokenService.now())
            try await portal.store.saveFolder(folder)
            return json(call, .object(["success": .bool(true), "folder": .object(["username": .string(owner.username), "id": .string(folder.id), "title": .string(title)])]))
        }
        endpoint(router, "\(prefix)/content/users/:user/:folder/delete", portal, methods: [.post]) { call, context in
            let owner = try await portal.owner(call, context)
            guard let folder = try await portal.folder(context.parameters.get("folder"), owner: owner) else {
                throw PortalError.badRequest("That is the root folder; it cannot be deleted.")
            }
            for record in try await portal.store.items() where record.item.ownerFolder == folder.id {
                try await portal.removeItem(record.item.id)
            }
            try await portal.store.deleteFolder(folder.id)
            return json(call, .object(["success": .bool(true), "folder": .object(["username": .string(owner.username), "id": .string(folder.id), "title": .string(folder.title)])]))
        }
    }

    /// A comma-separated list, or a JSON array of strings (the `arcgis` client sends either).
    static func list(_ value: String?) -> [String] {
        guard let value, !value.isEmpty else { return [] }
        if value.hasPrefix("["), case .array(let items)? = try? JSONParser.parse(value) {
            return items.compactMap(\.stringValue).map { $0.trimming(" \t") }.filter { !$0.isEmpty }
        }
        return value.split(separator: ",").map { $0.trimming(" \t") }.filter { !$0.isEmpty }
    }

    static func flag(_ value: String?) -> Bool? {
        guard let v = value?.lowercased() else { return nil }
        if v == "true" || v == "1" || v == "yes" { return true }
        if v == "false" || v == "0" || v == "no" { return false }
        return nil
    }

    /// The item properties a request sets (add, commit, update).
    static func applyProperties(_ call: PortalRequest, to item: inout PortalItem) throws {
        if let v = call["title"] { item.title = String(v.prefix(250)) }
        if let v = call["type"] { item.type = v }
        if call.parameters.values["tags"] != nil { item.tags = list(call.parameters.values["tags"]) }
        if call.parameters.values["typeKeywords"] != nil { item.typeKeywords = list(call.parameters.values["typeKeywords"]) }
        for (key, path) in [("description", \PortalItem.description), ("snippet", \.snippet), ("accessInformation", \.accessInformation),
            ("licenseInfo", \.licenseInfo), ("culture", \.culture), ("url", \.url)] as [(String, WritableKeyPath<PortalItem, String?>)]
        {
            if let v = call.parameters.values[key] { item[keyPath: path] = v.isEmpty ? nil : v }
        }
        if let v = call["extent"] { item.extent = try parseExtent(v) }
    }

    /// `xmin,ymin,xmax,ymax` or `[[xmin,ymin],[xmax,ymax]]`.
    static func parseExtent(_ text: String) throws -> [[Double]]? {
        var numbers: [Double] = []
        if text.hasPrefix("["), case .array(let corners)? = try? JSONParser.parse(text) {
            numbers = corners.flatMap { $0.arrayValue?.compactMap(\.doubleValue) ?? [] }
        } else {
            numbers = text.split(separator: ",").compactMap { Double($0.trimming(" \t")) }
        }
        if numbers.isEmpty { return nil }
        guard numbers.count == 4, numbers.allSatisfy(\.isFinite) else {
            throw PortalError.badRequest("extent must be xmin,ymin,xmax,ymax or [[xmin,ymin],[xmax,ymax]].", details: [text])
        }
        return [[numbers[0], numbers[1]], [numbers[2], numbers[3]]]
    }

    static func addItem(_ call: PortalRequest, _ portal: Portal, owner: UserRecord, folder: FolderRecord?) async throws -> Response {
        let now = TokenService.now()
        var item = PortalItem(id: TokenService.newId(), owner: owner.username, orgId: portal.orgId, created: now, modified: now, title: "", type: "")
        item.ownerFolder = folder?.id
        try applyProperties(call, to: &item)
        let inParts = flag(call["multipart"]) == true
        let file = call.parameters.files["file"]
        let fileName = call["fileName"] ?? call["filename"] ?? file?.name
        if item.type.isEmpty, let fileName, fileName.lowercased().hasSuffix(".mmpk") { item.type = PackageManifest.mobileMapPackageType }
        guard !item.type.isEmpty else { throw PortalError.badRequest("An item needs a type.", details: ["Give 'type', e.g. type=Mobile Map Package."]) }
        if let fileName {
            guard PortalPaths.isFileName(fileName) else { throw PortalError.badRequest("'\(fileName)' is not a file name.") }
            item.name = fileName
        }
        if inParts {
            guard fileName != nil else { throw PortalError.badRequest("A multipart upload needs fileName.") }
            if item.title.isEmpty { item.title = fileName.map(stem) ?? "" }
            let record = ItemRecord(item: item, status: .uploading, groups: [], sha256: nil)
            try await portal.store.saveItem(record)
            return json(call, .object(["success": .bool(true), "id": .string(item.id), "folder": folder.map { .string($0.id) } ?? .null]))
        }
        var record = ItemRecord(item: item, status: .uploading, groups: [], sha256: nil)
        if let file {
            record = try await portal.finish(record, data: file, fileName: fileName ?? file.name, call: call, isNew: true)
        } else {
            if let text = call.parameters.values["text"] {
                let staged = try portal.files.stagingFile()
                try Disk.writeAtomically(Array(text.utf8), to: staged)
                let upload = UploadedFile(path: staged, name: "data.json", size: Int64(text.utf8.count), sha256: SHA256Digest.hex(of: Array(text.utf8)))
                record = try await portal.finish(record, data: upload, fileName: "data.json", call: call, isNew: true)
            } else {
                if record.item.title.isEmpty { throw PortalError.badRequest("An item needs a title.") }
                record.status = .ready
                try await portal.store.saveItem(record)
            }
        }
        try await portal.storeThumbnail(call, &record)
        return json(call, .object(["success": .bool(true), "id": .string(record.item.id), "folder": folder.map { .string($0.id) } ?? .null]))
    }

    static func stem(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// Joins the parts of an upload (1, 2, ... with no gap) into the item's data. The parts
    /// may have come to any portal process: the store lists them, the file store holds them.
    /// Returns the item and, for a package whose copy devices synchronise to, the merge of
    /// the owner's changes into it (`Portal.finishVersion`).
    static func commitParts(_ call: PortalRequest, _ portal: Portal, _ record: ItemRecord) async throws -> (ItemRecord, RepublishMerge?) {
        let parts = try await portal.store.uploadParts(itemId: record.item.id)
        if record.status == .ready, parts.isEmpty { return (record, nil) }
        guard !parts.isEmpty else { throw PortalError.badRequest("No parts were uploaded for item \(record.item.id).") }
        guard parts.map(\.number) == Array(1...parts.count) else {
            let missing = Set(1...(parts.last?.number ?? 1)).subtracting(parts.map(\.number)).sorted().prefix(10).map(String.init)
            throw PortalError.badRequest("Parts are missing: \(missing.joined(separator: ", ")).")
        }
        let id = record.item.id, name = record.item.name ?? "data"
        let version = Portal.newVersion()
        func removeParts() async { try? await portal.discardParts(id) }
        var updated: ItemRecord
        var merge: RepublishMerge?
        do {
            let isPackage = Portal.isPackage(record, fileName: name)
            // The validator and the package reader read a file on this machine: a temporary
            // copy, written while the parts are joined, removed afterwards.
            let scratch = isPackage ? try portal.files.stagingFile() : nil
            defer { if let scratch { unlink(scratch) } }
            let joined = try await portal.files.joinParts(itemId: id, version: version, fileName: name, parts: parts, limit: portal.configuration.limits.fileBytes, copyTo: scratch)
            func finish(from path: String) async throws -> (record: ItemRecord, merge: RepublishMerge?) {
                let upload = UploadedFile(path: path, name: name, size: joined.size, sha256: joined.sha256)
                return try await portal.finishVersion(record, data: upload, fileName: name, call: call, isNew: record.status == .uploading, storedAs: version)
            }
            if !isPackage {
                // Other files are stored as they are: nothing reads them here (no path needed).
                (updated, merge) = try await finish(from: "")
            } else if let scratch, joined.copied {
                (updated, merge) = try await finish(from: scratch)
            } else {
                // The store's file is on this machine already (or is copied here).
                guard let file = try await portal.files.dataFile(itemId: id, version: version, fileName: name, size: joined.size) else {
                    throw PortalError(code: 500, message: "The joined upload of item \(id) cannot be found.")
                }
                (updated, merge) = try await portal.files.withLocalCopy(file) { try await finish(from: $0) }
            }
        } catch {
            // The joined data goes unless the record already names it (a failure after it was saved).
            if (try? await portal.store.item(id))??.version != version { await portal.files.removeData(itemId: id, version: version) }
            // The database or the object store failing for a moment is no refusal: the item and
            // its parts stay, and the client's retried commit joins them again.
            guard Self.isRefusal(error) else { throw error }
            // A refused upload leaves nothing: a new item goes, an update keeps the old version.
            await removeParts()
            if record.status == .uploading {
                try? await portal.store.deleteItem(id)
                await portal.files.remove(itemId: id)
            } else {
                try? await portal.store.saveItem(ItemRecord(item: record.item, status: .ready, groups: record.groups, sha256: record.sha256, version: record.version))
            }
            if let error = error as? PortalStoreError, error.kind == .tooLarge {
                throw PortalError(code: 413, message: "The file is larger than \(portal.configuration.limits.fileBytes) bytes.")
            }
            throw error
        }
        await removeParts()
        try await portal.storeThumbnail(call, &updated)
        return (updated, merge)
    }

    /// Whether a failed commit was the upload's fault (invalid, too large), not the
    /// infrastructure's.
    static func isRefusal(_ error: any Error) -> Bool {
        if let error = error as? PortalError { return (400..<500).contains(error.code) }
        if let error = error as? PortalStoreError { return error.kind == .tooLarge || error.kind == .invalidName }
        return false
    }

    static func updateItem(_ call: PortalRequest, _ portal: Portal, _ record: ItemRecord) async throws -> Response {
        var record = record
        if flag(call["multipart"]) == true {
            // A large new version: parts and a commit follow; the item stays readable meanwhile.
            if let name = call["fileName"] ?? call["filename"] {
                guard PortalPaths.isFileName(name) else { throw PortalError.badRequest("'\(name)' is not a file name.") }
                record.item.name = name
            }
            try await portal.discardParts(record.item.id)
            try applyProperties(call, to: &record.item)
            try await portal.store.saveItem(record)
            return json(call, .object(["success": .bool(true), "id": .string(record.item.id)]))
        }
        try applyProperties(call, to: &record.item)
        var answer: JSONObject = ["success": .bool(true), "id": .string(record.item.id)]
        if let file = call.parameters.files["file"] {
            let merge: RepublishMerge?
            (record, merge) = try await portal.finishVersion(record, data: file, fileName: file.name, call: call, isNew: false)
            if let merge { answer["mapbookMerge"] = Portal.mergeJSON(merge) }
        } else {
            record.item.modified = max(TokenService.now(), record.item.modified + 1)
            try await portal.store.saveItem(record)
        }
        try await portal.storeThumbnail(call, &record)
        return json(call, .object(answer))
    }

    /// Sets who sees the item: `everyone`, `org`, and `groups` to add (or, unsharing, remove).
    static func share(_ call: PortalRequest, _ portal: Portal, _ record: ItemRecord, unshare: Bool) async throws -> JSONValue {
        let user = try call.requireUser()
        let groups = list(call["groups"])
        let (shared, refused) = try await portal.share(
            record, by: user, from: call.clientAddress, adding: unshare ? [] : groups, removing: unshare ? groups : [],
            everyone: unshare ? nil : flag(call["everyone"]), org: unshare ? nil : flag(call["org"]))
        let key = unshare ? "notUnsharedFrom" : "notSharedWith"
        return .object(["itemId": .string(shared.item.id), key: .array(refused.map { .string($0) })])
    }
}
