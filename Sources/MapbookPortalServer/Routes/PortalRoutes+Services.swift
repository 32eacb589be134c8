import Hummingbird
import MapbookTiles
import NIOPosix
import MapbookEditing
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport

extension PortalRoutes {
    /// Where services are, beside the sharing API (ArcGIS Server's `rest/services`).
    public static let servicesPrefix = "/rest/services"

    /// The feature services (docs/PORTAL.md "Feature services"): `FeatureServer`, its layers,
    /// `query` and `applyEdits`, named by the package's item id. Who can see the service's
    /// item may query; who may edit it (as sync) may apply edits, others are refused (403).
    static func services(_ router: Router<PortalContext>, _ portal: Portal) {
        let base = "\(servicesPrefix)/:service/FeatureServer"
        endpoint(router, base, portal) { call, context in
            let name = try context.parameters.require("service")
            let record = try await portal.serviceItem(name, call.user)
            let description = record.item.snippet ?? ""
            return json(call, try await portal.withFeatureService(name) { try $0.serviceJSON(description: description) })
        }
        endpoint(router, "\(base)/:layer", portal) { call, context in
            let name = try context.parameters.require("service"), layer = try context.parameters.require("layer")
            _ = try await portal.serviceItem(name, call.user)
            return json(call, try await portal.withFeatureService(name) { try $0.layerJSON(try $0.layer(layer)) })
        }
        endpoint(router, "\(base)/:layer/query", portal) { call, context in
            let name = try context.parameters.require("service"), layer = try context.parameters.require("layer")
            _ = try await portal.serviceItem(name, call.user)
            let parameters = call.parameters.values
            let answer = try await portal.withFeatureService(name) { service in try service.query(parameters, layer: try service.layer(layer)) }
            switch answer {
            case .json(let value): return json(call, value)
            case .encoded(let bytes): return PortalResponse.json(encoded: bytes)
            }
        }
        endpoint(router, "\(base)/:layer/applyEdits", portal, methods: [.post]) { call, context in
            let name = try context.parameters.require("service"), layer = try context.parameters.require("layer")
            let (_, user) = try await serviceEditor(call, portal, name)
            let edits: FeatureEdits
            do {
                edits = try FeatureEdits(call.parameters.values)
            } catch let error as FeatureServiceError {
                throw Portal.serviceError(error)
            }
            let table = try await portal.editableTable(name, layer: layer)
            return json(call, try await portal.applyEdits(name, layer: table, edits, user: user).json)
        }
        endpoint(router, "\(base)/:layer/queryRelatedRecords", portal) { call, context in
            let name = try context.parameters.require("service"), layer = try context.parameters.require("layer")
            _ = try await portal.serviceItem(name, call.user)
            let parameters = call.parameters.values
            return json(call, try await portal.withFeatureService(name) { try $0.relatedRecords(parameters, layer: try $0.layer(layer)) })
        }
        attachments(router, portal, base: base)
        vectorTiles(router, portal)
    }

    /// The package's backdrop as ArcGIS's `VectorTileServer`: the service description (the
    /// package's `root.json`), tiles, and the style, sprites and fonts under `resources/`.
    /// Access as the package's feature service.
    static func vectorTiles(_ router: Router<PortalContext>, _ portal: Portal) {
        let base = "\(servicesPrefix)/:service/VectorTileServer"
        @Sendable func backdrop(_ call: PortalRequest, _ context: PortalContext) async throws -> BackdropFiles {
            let name = try context.parameters.require("service")
            _ = try await portal.serviceItem(name, call.user)
            guard let files = try await portal.backdrop(name) else {
                throw PortalError(code: 404, message: "Service \(name)/VectorTileServer not found: the package has no vector tile backdrop.", details: [name])
            }
            return files
        }
        endpoint(router, base, portal) { call, context in
            let files = try await backdrop(call, context)
            // A read of the package, which may wait for the bucket: on the thread pool.
            let read = try await NIOThreadPool.singleton.runIfActive { try files.package.file("root.json") }
            guard let bytes = read, var root = (try? JSONParser.parse(bytes))?.objectValue else {
                throw PortalError(code: 404, message: "The backdrop has no root.json.")
            }
            root["tiles"] = ["tile/{z}/{y}/{x}.pbf"]
            root["capabilities"] = "TilesOnly"
            root["defaultStyles"] = "resources/styles"
            return json(call, .object(root))
        }
        endpoint(router, "\(base)/tile/:z/:y/:x", portal, methods: [.get]) { call, context in
            let files = try await backdrop(call, context)
            let x = try context.parameters.require("x")
            guard let z = Int(try context.parameters.require("z")), let y = Int(try context.parameters.require("y")),
                let column = Int(x.hasSuffix(".pbf") ? String(x.dropLast(4)) : x), z >= 0, z <= 30, y >= 0, column >= 0
            else {
                throw PortalError.badRequest("A tile is tile/{z}/{y}/{x}.pbf, in whole numbers.")
            }
            let tile = try await NIOThreadPool.singleton.runIfActive { try files.tile(TileCoordinate(z: z, x: column, y: y)) }
            return PortalResponse.tile(tile)
        }
        endpoint(router, "\(base)/resources/**", portal, methods: [.get]) { call, context in
            let files = try await backdrop(call, context)
            let path = context.parameters.getCatchAll().map { FormEncoding.percentDecode($0.utf8) ?? String($0) }.joined(separator: "/")
            guard let bytes = try await NIOThreadPool.singleton.runIfActive({ try files.package.resource(path) }) else {
                throw PortalError(code: 404, message: "The backdrop has no resources/\(path).", details: [path])
            }
            return PortalResponse.bytes(bytes, contentType: contentType(path), name: FileSystem.lastComponent(path))
        }
    }

    /// A feature's attachments: list, read one, add (a multipart `attachment`), delete.
    static func attachments(_ router: Router<PortalContext>, _ portal: Portal, base: String) {
        @Sendable func target(_ context: PortalContext) throws -> (String, String, Int64) {
            let name = try context.parameters.require("service"), layer = try context.parameters.require("layer")
            guard let feature = Int64(try context.parameters.require("feature")) else { throw PortalError.badRequest("The feature id must be a whole number.") }
            return (name, layer, feature)
        }
        endpoint(router, "\(base)/:layer/:feature/attachments", portal) { call, context in
            let (name, layer, feature) = try target(context)
            _ = try await portal.serviceItem(name, call.user)
            return json(call, try await portal.withFeatureService(name) { try $0.attachmentInfos(layer: try $0.layer(layer), featureId: feature) })
        }
        endpoint(router, "\(base)/:layer/:feature/attachments/:attachment", portal, methods: [.get]) { call, context in
            let (name, layer, feature) = try target(context)
            guard let id = Int64(try context.parameters.require("attachment")) else { throw PortalError.badRequest("The attachment id must be a whole number.") }
            _ = try await portal.serviceItem(name, call.user)
            let found = try await portal.withFeatureService(name) { service -> (bytes: [UInt8], type: String, name: String)? in
                guard let a = try service.attachments(layer: try service.layer(layer), featureId: feature, attachmentId: id, bytes: true).first else { return nil }
                return (a.bytes, a.contentType, a.name)
            }
            guard let found else { throw PortalError(code: 404, message: "Feature \(feature) has no attachment \(id).", details: [String(id)]) }
            return PortalResponse.bytes(found.bytes, contentType: found.type, name: found.name)
        }
        endpoint(router, "\(base)/:layer/:feature/addAttachment", portal, methods: [.post]) { call, context in
            let (name, layer, feature) = try target(context)
            let (_, user) = try await serviceEditor(call, portal, name)
            guard let file = call.parameters.files["attachment"] else { throw PortalError.badRequest("addAttachment needs the file (the attachment part).") }
            let table = try await portal.editableTable(name, layer: layer)
            let result = try await portal.addAttachment(name, layer: table, featureId: feature, file: file, contentType: WorkingCopy.contentType(forName: file.name), user: user)
            return json(call, .object(["addAttachmentResult": result.json]))
        }
        endpoint(router, "\(base)/:layer/:feature/deleteAttachments", portal, methods: [.post]) { call, context in
            let (name, layer, feature) = try target(context)
            let (_, user) = try await serviceEditor(call, portal, name)
            var ids: [Int64] = []
            for part in list(call["attachmentIds"]) {
                guard let id = Int64(part) else { throw PortalError.badRequest("'\(part)' is not an attachment id.", details: ["attachmentIds"]) }
                ids.append(id)
            }
            let table = try await portal.editableTable(name, layer: layer)
            let now = TokenService.now() / 1000, chosen = ids
            let results = try await portal.changeService(name) { copy in
                try copy.deleteAttachments(layer: table, featureId: feature, ids: chosen, user: user.username, now: now)
            }
            return json(call, .object(["deleteAttachmentResults": .array(results.map(\.json))]))
        }
    }

    /// The caller of an edit, who must be allowed to edit the service's item.
    static func serviceEditor(_ call: PortalRequest, _ portal: Portal, _ name: String) async throws -> (ItemRecord, UserRecord) {
        let user = try call.requireUser()
        let record = try await portal.serviceItem(name, user)
        guard try await portal.canEdit(record, user) else { throw PortalError.forbidden }
        return (record, user)
    }
}
