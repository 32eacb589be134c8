import Hummingbird
import MapbookEditing
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
            let answer = try await portal.withFeatureService(name) { service in
                guard case .json(let value) = try service.query(parameters, layer: try service.layer(layer)) else { return JSONValue.null }
                return value
            }
            return json(call, answer)
        }
        endpoint(router, "\(base)/:layer/applyEdits", portal, methods: [.post]) { call, context in
            let name = try context.parameters.require("service"), layer = try context.parameters.require("layer")
            let user = try call.requireUser()
            let record = try await portal.serviceItem(name, user)
            guard try await portal.canEdit(record, user) else { throw PortalError.forbidden }
            let edits: FeatureEdits
            do {
                edits = try FeatureEdits(call.parameters.values)
            } catch let error as FeatureServiceError {
                throw Portal.serviceError(error)
            }
            let table = try await portal.withFeatureService(name) { try $0.layer(layer).name }
            return json(call, try await portal.applyEdits(name, layer: table, edits, user: user).json)
        }
    }
}
