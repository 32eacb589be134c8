import Hummingbird
import MapbookPortalAPI
import MapbookSupport

extension PortalRoutes {
    /// The sharing API's version the portal reports (`/sharing/rest?f=json`): clients split it
    /// on dots and compare numbers.
    static let apiVersion = "2024.1"

    /// What the portal is and who is signed in: `info`, `portals/self`, `community/self`,
    /// `community/users/{u}`, `portals/self/roles`.
    static func info(_ router: Router<PortalContext>, _ portal: Portal) {
        // `/sharing/rest/` too: the router ignores the trailing slash.
        endpoint(router, prefix, portal) { call, _ in json(call, .object(["currentVersion": .string(apiVersion)])) }
        // For load balancers: 200 while this process answers and reaches its metadata store,
        // 503 (the store's error) when it does not, so the balancer sends requests elsewhere.
        // The HTTP status says it (the API's errors are 200s with an error body, which a
        // balancer does not read).
        for method in [HTTPRequest.Method.get, .head] {
            router.on("/health", method: method) { _, context in
                do {
                    _ = try await portal.store.setting("orgId")
                    return PortalResponse.json(.object(["status": .string("ok")]))
                } catch {
                    context.logger.error("health: \(error)")
                    var response = PortalResponse.json(.object(["status": .string("unavailable"), "reason": .string("\(error)")]))
                    response.status = .serviceUnavailable
                    return response
                }
            }
        }
        endpoint(router, "\(prefix)/info", portal) { call, _ in
            json(call, .object([
                "owningSystemUrl": .string(call.baseURL),
                "authInfo": .object([
                    "tokenServicesUrl": .string("\(call.baseURL)\(prefix)/generateToken"),
                    "isTokenBasedSecurity": .bool(true),
                    "shortLivedTokenValidity": .integer(portal.configuration.defaultTokenMinutes),
                ]),
                "fullVersion": .string(apiVersion),
                "currentVersion": .string(apiVersion),
            ]))
        }
        endpoint(router, "\(prefix)/portals/self", portal) { call, _ in
            json(call, await portalSelf(portal, call))
        }
        endpoint(router, "\(prefix)/portals/:id", portal) { call, context in
            guard try context.parameters.require("id") == portal.orgId || context.parameters.get("id") == "self" else {
                throw PortalError(code: 400, message: "Portal not found.")
            }
            return json(call, await portalSelf(portal, call))
        }
        endpoint(router, "\(prefix)/community/self", portal) { call, _ in
            guard let user = call.user else {
                // Anonymous: the API answers with an empty user rather than an error.
                return json(call, .object([:]))
            }
            return json(call, try await userJSON(user, portal, full: true))
        }
        endpoint(router, "\(prefix)/community/users/:user", portal) { call, context in
            let name = try context.parameters.require("user")
            // The portal is private: members see each other, the anonymous see no one.
            _ = try call.requireUser()
            guard let user = try await portal.store.user(name) else {
                throw PortalError(code: 400, messageCode: "COM_0003", message: "User does not exist or is inaccessible.", details: [name])
            }
            let full = call.user.map { $0.isAdmin || $0.username.lowercased() == user.username.lowercased() } ?? false
            return json(call, try await userJSON(user, portal, full: full))
        }
        endpoint(router, "\(prefix)/portals/self/roles", portal) { call, _ in
            _ = try call.requireUser()
            let roles: [JSONValue] = [
                .object(["id": .string("org_admin"), "name": .string("Administrator"), "description": .string("Manages users, groups and every item.")]),
                .object(["id": .string("org_user"), "name": .string("User"), "description": .string("Publishes, shares and downloads items.")]),
            ]
            return json(call, .object(["total": .integer(2), "start": .integer(1), "num": .integer(2), "nextStart": .integer(-1), "roles": .array(roles)]))
        }
    }

    static func portalSelf(_ portal: Portal, _ call: PortalRequest) async -> JSONValue {
        var o: JSONObject = [
            "id": .string(portal.orgId),
            "name": .string(await portal.organizationName()),
            "portalName": .string(await portal.organizationName()),
            "portalMode": .string("singletenant"),
            "isPortal": .bool(true),
            "currentVersion": .string(apiVersion),
            "allSSL": .bool(true),
            "access": .string("private"),
            "urlKey": .null,
            "customBaseUrl": .null,
            "supportsOAuth": .bool(true),
            "helperServices": .object([:]),
            "recycleBinSupported": .bool(false),
            "recycleBinEnabled": .bool(false),
            "portalHostname": .string(String(call.baseURL.dropFirst("https://".count))),
            "defaultBasemap": .null,
        ]
        if let user = call.user, let u = try? await userJSON(user, portal, full: true) { o["user"] = u }
        return .object(o)
    }

    /// A user as `community/users/{u}` shows them; others see the public part only.
    static func userJSON(_ user: UserRecord, _ portal: Portal, full: Bool) async throws -> JSONValue {
        var o: JSONObject = [
            "username": .string(user.username),
            "id": .string(user.id),
            "fullName": .string(user.fullName),
            "orgId": .string(portal.orgId),
            "created": .integer(user.created),
            "modified": .integer(user.modified),
            "provider": .string("arcgis"),
            "thumbnail": .null,
            "culture": .string("en"),
            "region": .null,
            "disabled": .bool(false),
        ]
        if full {
            o["email"] = .string(user.email)
            o["role"] = .string(user.role)
            o["access"] = .string("org")
            var privileges = ["portal:user:createItem", "portal:user:shareToGroup", "portal:user:shareToOrg", "portal:user:shareToPublic", "portal:user:createGroup", "portal:user:joinGroup"]
            if user.isAdmin {
                privileges += ["portal:admin:viewItems", "portal:admin:updateItems", "portal:admin:deleteItems", "portal:admin:shareToGroup", "portal:admin:shareToOrg", "portal:admin:shareToPublic", "portal:admin:viewUsers"]
            }
            o["privileges"] = .array(privileges.map { .string($0) })
            let groups = try await portal.store.groups().filter { g in g.members.contains { $0.lowercased() == user.username.lowercased() } }
            o["groups"] = .array(groups.map { groupJSON($0, user: user, orgId: portal.orgId) })
        } else {
            o["privileges"] = .array([])
        }
        return .object(o)
    }
}
