import Hummingbird
import MapbookPackage
import MapbookPortalAPI
import MapbookSearch
import MapbookInspection
import MapbookEditing
import MapbookSupport
import NIOPosix

extension Portal {
    /// The user whose content a path names (`content/users/{u}/...`): the caller, or anyone for an admin.
    func owner(_ call: PortalRequest, _ context: PortalContext) async throws -> UserRecord {
        let user = try call.requireUser()
        let name = try context.parameters.require("user")
        guard user.isAdmin || user.username.lowercased() == name.lowercased() else { throw PortalError.forbidden }
        guard let owner = try await store.user(name) else {
            throw PortalError(code: 400, messageCode: "COM_0003", message: "User does not exist or is inaccessible.", details: [name])
        }
        return owner
    }

    /// A folder of `owner` by id or title; nil for the root (no segment, `/` or "Root Folder").
    func folder(_ segment: String?, owner: UserRecord) async throws -> FolderRecord? {
        guard let segment, !segment.isEmpty, segment != "/", segment.lowercased() != "root", segment.lowercased() != "root folder" else { return nil }
        guard let folder = try await store.folders(owner: owner.username).first(where: { $0.id == segment || $0.title.lowercased() == segment.lowercased() }) else {
            throw PortalError.badRequest("Folder not found.", details: [segment])
        }
        return folder
    }

    /// The item a `content/users/{u}[/{folder}]/items/{id}/...` path names, if the caller may change it.
    func ownedItem(_ call: PortalRequest, _ context: PortalContext, allowUploading: Bool) async throws -> ItemRecord {
        let user = try call.requireUser()
        let id = try context.parameters.require("id")
        let name = try context.parameters.require("user")
        guard PortalPaths.isItemId(id), let record = try await store.item(id), allowUploading || record.status == .ready,
            record.item.owner.lowercased() == name.lowercased()
        else { throw PortalError.itemNotFound(id) }
        guard canWrite(record, user) else {
            if canRead(record, user, groups: try await memberGroups(user)) { throw PortalError.forbidden }
            throw PortalError.itemNotFound(id)
        }
        return record
    }

    /// Makes an uploaded file the item's data: a package is validated first (refused with the
    /// validator's findings), and gives the item what the request left out: title, snippet,
    /// description, tags, extent and thumbnail from its `.info`. Bumps `modified`.
    ///
    /// `data.path` is a file on this machine; `storedAs` the version the file store already
    /// holds it under (joined parts), or nil to store it now under a new one. The record then
    /// names the new version and the old one goes.
    /// The info file holding the current version's `PackageLayout`.
    static let layoutPath = "mapbook/layout.json"

    func finish(_ record: ItemRecord, data: UploadedFile, fileName: String, call: PortalRequest, isNew: Bool, storedAs: String? = nil, fromCopy: Bool = false) async throws -> ItemRecord {
        try await finishVersion(record, data: data, fileName: fileName, call: call, isNew: isNew, storedAs: storedAs, fromCopy: fromCopy).record
    }

    /// `finish`, with the merge of a new version of an editable package into the copy devices
    /// synchronise to (Portal+Republish), when there was one: the item then holds the merged
    /// data, published as the version after the upload. `fromCopy`: the file is the copy's
    /// data already (`publishSync`), nothing to merge.
    func finishVersion(
        _ record: ItemRecord, data: UploadedFile, fileName: String, call: PortalRequest, isNew: Bool, storedAs: String? = nil, fromCopy: Bool = false
    ) async throws -> (record: ItemRecord, merge: RepublishMerge?) {
        guard PortalPaths.isFileName(fileName) else { throw PortalError.badRequest("'\(fileName)' is not a file name.") }
        var record = record
        let isPackage = Self.isPackage(record, fileName: fileName)
        if isPackage {
            if record.item.type.isEmpty { record.item.type = PackageManifest.mobileMapPackageType }
            if configuration.validatePackages {
                // Reads the whole package: on NIO's thread pool, not the cooperative pool.
                let path = data.path
                let errors = try await NIOThreadPool.singleton.runIfActive {
                    PackageCheck.validate(path: path).diagnostics.filter { $0.severity == .error }.map(\.description)
                }
                if !errors.isEmpty {
                    throw PortalError(
                        code: 400, messageCode: "CONT_0034",
                        message: "The package is not valid: \(errors.count) error\(errors.count == 1 ? "" : "s") (mapbook validate shows them all).",
                        details: errors.prefix(50).map { $0.replacingFirstPath(data.path, with: fileName) })
                }
            }
        }
        if isPackage { try await checkSignature(data.path, owner: record.item.owner, fileName: fileName) }
        // A file sent with this request, whose client has gone: nobody would learn of the
        // item or version, and the client's next run publishes it again. Parts committed by
        // a later request are kept whatever becomes of that request's client.
        if call.clientLeft?.isSet == true, call.parameters.files.values.contains(where: { $0.path == data.path }) {
            throw PortalError(code: 400, message: "The client closed the connection before the upload was stored; nothing was kept.")
        }
        if isPackage {
            if let package = try? MobileMapPackage(path: data.path) {
                adopt(package.manifest, into: &record, requestGave: call.parameters.values, isNew: isNew)
                if record.item.thumbnail == nil, call.parameters.files["thumbnail"] == nil, let uri = package.manifest.thumbnail,
                    let bytes = DataURI.decode(uri), let kind = ImageKind(bytes)
                {
                    let name = kind == .png ? "thumbnail.png" : "thumbnail.jpg"
                    try await files.putInfo(itemId: record.item.id, path: "thumbnail/\(name)", bytes: bytes)
                    record.item.thumbnail = "thumbnail/\(name)"
                }
            }
        }
        // The owner's changes merged into the copy before the version is stored: a schema the
        // merge cannot carry refuses the upload, and the item keeps its version.
        var merged: RepublishMerge?
        if isPackage, !fromCopy, record.status == .ready, let previous = record.version, try await mergesIntoCopy(record) {
            merged = try await republish(record, previous: PreviousVersion(version: previous), newPath: data.path, call: call)
        }
        if record.item.title.isEmpty { record.item.title = PortalRoutes.stem(fileName) }
        // What devices build this version from the one they hold with (updates by delta),
        // read now, while the file is on this machine.
        let path = data.path, sha256 = data.sha256
        let layout = isPackage ? try? await NIOThreadPool.singleton.runIfActive { try PackageLayout.read(path: path, fileSHA256: sha256) } : nil
        let version = storedAs ?? Self.newVersion()
        if storedAs == nil { try await files.putData(itemId: record.item.id, version: version, fileName: fileName, from: data.path) }
        let previous = record.status == .ready ? record.version : nil
        let replaced = previous.map { PreviousVersion(version: $0) }
        record.item.name = fileName
        record.item.size = data.size
        record.sha256 = data.sha256
        record.version = version
        record.item.modified = max(TokenService.now(), record.item.modified + 1)
        record.status = .ready
        // The new version's patches from the one it replaces, made while both are here and
        // before the record names it, so a device that sees the version finds them.
        if let layout, let replaced, replaced.version != version {
            let local = access(data.path, R_OK) == 0 ? data.path : nil
            if let local {
                await makePatches(itemId: record.item.id, previous: replaced, newPath: local, layout: layout, modified: record.item.modified)
            } else if let stored = try await files.dataFile(itemId: record.item.id, version: version, fileName: fileName, size: data.size) {
                let (id, modified) = (record.item.id, record.item.modified)
                try await files.withLocalCopy(stored) { await self.makePatches(itemId: id, previous: replaced, newPath: $0, layout: layout, modified: modified) }
            }
        }
        do {
            try await store.saveItem(record)
        } catch {
            await files.removeData(itemId: record.item.id, version: version)
            throw error
        }
        // The record names the new version: the old one is nobody's (a download of it under
        // way may fail and start again, with the new ETag).
        if let previous, previous != version { await files.removeData(itemId: record.item.id, version: previous) }
        if let layout { await storeLayout(layout, itemId: record.item.id) }
        // Copies the package's data when it has editable layers, from the file on this
        // machine the validator read, or the stored one when storing it moved that file.
        // Then its feature service and web maps (Portal+Services, Portal+WebMaps). A map area
        // taken offline has none: it synchronises with its source's copy.
        if isPackage, Self.areaSource(record) == nil {
            let saved = record
            let services = { @Sendable (local: String) async throws in
                try await self.makeSyncCopy(saved, from: local)
                try await self.updateServiceItem(for: saved, baseURL: call.baseURL)
                try await self.updateWebMaps(for: saved, package: local, call: call)
            }
            if access(data.path, R_OK) == 0 {
                try await services(data.path)
            } else if let stored = try await files.dataFile(itemId: record.item.id, version: version, fileName: fileName, size: nil) {
                try await files.withLocalCopy(stored) { try await services($0) }
            }
        }
        // The upload lacks the field's edits: the merged copy becomes the item's version.
        if merged != nil { record = try await publishSync(record, call: call).0 }
        return (record, merged)
    }

    /// Whether the upload is a mobile map package, which is validated and read.
    static func isPackage(_ record: ItemRecord, fileName: String) -> Bool {
        record.item.type == PackageManifest.mobileMapPackageType || fileName.lowercased().hasSuffix(".mmpk")
    }

    /// Fills what the request did not set from a package's `.info`. The extent is a fact of
    /// the data, so a new version's extent always replaces the old.
    func adopt(_ info: PackageManifest, into record: inout ItemRecord, requestGave: [String: String], isNew: Bool) {
        func empty(_ s: String?) -> Bool { s?.isEmpty ?? true }
        // A new item's title is the package's unless the owner gave one: at this request, or at
        // the `addItem` that began an upload in parts (which otherwise titles it by file name).
        let defaultTitle = empty(record.item.title) || (isNew && record.item.title == PortalRoutes.stem(record.item.name ?? ""))
        if requestGave["title"] == nil, defaultTitle, let t = info.title, !t.isEmpty { record.item.title = t }
        if requestGave["snippet"] == nil, empty(record.item.snippet), let s = info.snippet, !s.isEmpty { record.item.snippet = s }
        if requestGave["description"] == nil, empty(record.item.description), let d = info.description, !d.isEmpty { record.item.description = d }
        if requestGave["tags"] == nil, record.item.tags.isEmpty, let t = info.tags { record.item.tags = t }
        if requestGave["accessInformation"] == nil, empty(record.item.accessInformation), let a = info.accessInformation, !a.isEmpty { record.item.accessInformation = a }
        if requestGave["licenseInfo"] == nil, empty(record.item.licenseInfo), let l = info.licenseInfo, !l.isEmpty { record.item.licenseInfo = l }
        if requestGave["extent"] == nil, let e = info.extent { record.item.extent = [[e.minX, e.minY], [e.maxX, e.maxY]] }
        if requestGave["typeKeywords"] == nil, record.item.typeKeywords.isEmpty, let k = info.typeKeywords { record.item.typeKeywords = k }
    }

    /// A `thumbnail` file part becomes the item's thumbnail.
    func storeThumbnail(_ call: PortalRequest, _ record: inout ItemRecord) async throws {
        guard let file = call.parameters.files["thumbnail"] else { return }
        guard file.size <= 10 << 20, let bytes = try? readSmallFile(file.path, limit: 10 << 20), let kind = ImageKind(bytes) else {
            throw PortalError.badRequest("The thumbnail must be a PNG or JPEG image of at most 10 MB.")
        }
        let name = kind == .png ? "thumbnail.png" : "thumbnail.jpg"
        try await files.putInfo(itemId: record.item.id, path: "thumbnail/\(name)", bytes: bytes)
        record.item.thumbnail = "thumbnail/\(name)"
        try await store.saveItem(record)
    }

    /// A new version name for data: random, so two processes storing data for one item never collide.
    static func newVersion() -> String {
        var bytes = [UInt8](repeating: 0, count: 8)
        for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255) }
        return "v" + SHA256Digest.hex(bytes)
    }

    func readSmallFile(_ path: String, limit: Int) throws -> [UInt8] {
        let file = try RandomAccessFile(path: path)
        let size = Int(min(Int64(limit), file.size))
        return try file.read(at: 0, count: size)
    }
}

extension String {
    /// A finding names the staging file; the uploader knows their file by its name.
    func replacingFirstPath(_ path: String, with name: String) -> String {
        guard !path.isEmpty, let r = firstRange(of: path) else { return self }
        return String(self[..<r.lowerBound]) + name + String(self[r.upperBound...])
    }
}
