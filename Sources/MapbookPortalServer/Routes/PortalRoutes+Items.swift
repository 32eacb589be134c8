import Hummingbird
import MapbookPortalAPI
import MapbookSupport

extension PortalRoutes {
    /// Reading items: the item, its data, its info files, and a user's content listing.
    static func items(_ router: Router<PortalContext>, _ portal: Portal) {
        endpoint(router, "\(prefix)/content/items/:id", portal) { call, context in
            let record = try await portal.readableItem(try context.parameters.require("id"), call.user)
            await portal.noteDevice(call, record, downloading: false)
            return json(call, try await portal.itemJSON(record))
        }

        endpoint(router, "\(prefix)/content/items/:id/data", portal, methods: [.get, .head]) { call, context in
            let record = try await portal.readableItem(try context.parameters.require("id"), call.user)
            guard let name = record.item.name, let file = try await portal.files.dataFile(itemId: record.item.id, version: record.dataVersion, fileName: name, size: record.item.size) else {
                throw PortalError.badRequest("Item \(record.item.id) has no data file.")
            }
            // A download from its start (not a resumed one, not a HEAD) is history, and its
            // version is the device's from now on.
            if call.request.method == .get, (call.request.headers[.range] ?? "bytes=0-").trimmingWhitespace() == "bytes=0-" {
                await portal.noteDevice(call, record, downloading: true)
                await portal.noteEvent(call, record, .download, "Downloaded the version of \(ISODate.formatMinutes(milliseconds: record.item.modified))")
            }
            return FileResponse.send(file, from: portal.files, request: call.request, etag: record.sha256, modified: record.item.modified, contentType: contentType(file.name), attachment: true)
        }

        endpoint(router, "\(prefix)/content/items/:id/info/**", portal, methods: [.get, .head]) { call, context in
            let record = try await portal.readableItem(try context.parameters.require("id"), call.user)
            let path = context.parameters.getCatchAll().joined(separator: "/")
            guard PortalPaths.isInfoPath(path), let file = try await portal.files.infoFile(itemId: record.item.id, path: path) else {
                throw PortalError(code: 400, messageCode: "CONT_0001", message: "Item info file does not exist or is inaccessible.", details: [path])
            }
            return FileResponse.send(file, from: portal.files, request: call.request, etag: nil, modified: record.item.modified, contentType: contentType(file.name), attachment: false)
        }

        // A user's content: the root, or one folder.
        endpoint(router, "\(prefix)/content/users/:user", portal) { call, context in
            try await userContent(call, portal, username: try context.parameters.require("user"), folder: nil)
        }
        endpoint(router, "\(prefix)/content/users/:user/:folder", portal) { call, context in
            try await userContent(call, portal, username: try context.parameters.require("user"), folder: try context.parameters.require("folder"))
        }

        // The owner's view of one item: the item and how it is shared.
        for path in ["\(prefix)/content/users/:user/items/:id", "\(prefix)/content/users/:user/:folder/items/:id"] {
            endpoint(router, path, portal) { call, context in
                let user = try call.requireUser()
                let record = try await portal.readableItem(try context.parameters.require("id"), user)
                guard portal.canWrite(record, user) else { throw PortalError.forbidden }
                return json(call, .object(["item": record.item.jsonValue, "sharing": sharingJSON(record)]))
            }
        }
    }

    static func sharingJSON(_ record: ItemRecord) -> JSONValue {
        let access: String
        switch record.item.access {
        case .public: access = "public"
        case .org: access = "org"
        case .shared, .private: access = record.groups.isEmpty ? "private" : "shared"
        }
        return .object(["access": .string(access), "groups": .array(record.groups.map { .string($0) })])
    }

    /// `content/users/{u}` and `content/users/{u}/{folder}`: the owner (or an admin) lists the
    /// items and folders; a folder that is not theirs is an error, not an empty list.
    static func userContent(_ call: PortalRequest, _ portal: Portal, username: String, folder: String?) async throws -> Response {
        let user = try call.requireUser()
        guard let owner = try await portal.store.user(username) else {
            throw PortalError(code: 400, messageCode: "COM_0003", message: "User not found.", details: [username])
        }
        guard user.isAdmin || user.username.lowercased() == owner.username.lowercased() else { throw PortalError.forbidden }
        let folders = try await portal.store.folders(owner: owner.username)
        var current: FolderRecord?
        if let folder {
            guard let found = folders.first(where: { $0.id == folder || $0.title == folder }) else {
                throw PortalError(code: 400, message: "Folder not found.", details: [folder])
            }
            current = found
        }
        let items = try await portal.store.items()
            .filter { $0.status == .ready && $0.item.owner.lowercased() == owner.username.lowercased() && $0.item.ownerFolder == current?.id }
            .sorted { ($0.item.created, $0.item.id) < ($1.item.created, $1.item.id) }
        let page = try SearchPage(start: call["start"], num: call["num"])
        let result = page.apply(items)
        func folderJSON(_ f: FolderRecord) -> JSONValue {
            .object(["username": .string(f.owner), "id": .string(f.id), "title": .string(f.title), "created": .integer(f.created)])
        }
        return json(call, .object([
            "username": .string(owner.username),
            "total": .integer(Int64(result.total)),
            "start": .integer(Int64(result.start)),
            "num": .integer(Int64(result.num)),
            "nextStart": .integer(Int64(result.nextStart)),
            "currentFolder": current.map(folderJSON) ?? .null,
            "items": .array(result.results.map(\.item.jsonValue)),
            "folders": folder == nil ? .array(folders.map(folderJSON)) : .array([]),
        ]))
    }

    static func contentType(_ name: String) -> String {
        switch name.split(separator: ".").last?.lowercased() ?? "" {
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "json": return "application/json"
        case "xml": return "application/xml"
        case "zip", "mmpk", "vtpk", "tpkx": return "application/octet-stream"
        default: return "application/octet-stream"
        }
    }
}
