import Hummingbird
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport

extension PortalRoutes {
    /// Publishers' signing keys (`Portal+SigningKeys`): `community/users/{u}/signingKeys`
    /// (list, `add`, `remove`, by the user or an administrator), `portals/self/signingKeys`
    /// (every key, for devices to trust) and `portals/self/update` with
    /// `requirePackageSignatures`.
    static func signingKeys(_ router: Router<PortalContext>, _ portal: Portal) {
        @Sendable func owner(_ call: PortalRequest, _ context: PortalContext) async throws -> UserRecord {
            let caller = try call.requireUser()
            let name = try context.parameters.require("user")
            guard caller.isAdmin || caller.username.lowercased() == name.lowercased() else { throw PortalError.forbidden }
            guard let user = try await portal.store.user(name) else {
                throw PortalError(code: 400, messageCode: "COM_0003", message: "User does not exist or is inaccessible.", details: [name])
            }
            return user
        }
        @Sendable func listed(_ keys: [PublicSigningKey]) -> JSONValue {
            .array(keys.map { .object(["fingerprint": .string($0.fingerprint), "publicKey": .string($0.pem)]) })
        }
        let base = "\(prefix)/community/users/:user/signingKeys"
        endpoint(router, base, portal) { call, context in
            let user = try await owner(call, context)
            return json(call, .object(["keys": listed(try await portal.signingKeys(of: user.username))]))
        }
        endpoint(router, "\(base)/add", portal, methods: [.post]) { call, context in
            let user = try await owner(call, context)
            let key: PublicSigningKey
            do {
                key = try PublicSigningKey(pem: call["publicKey"] ?? "", path: "publicKey")
            } catch {
                throw PortalError.badRequest("'publicKey' is not a PEM Ed25519 public key (the KEY.pub 'mapbook keys create' writes).")
            }
            var keys = try await portal.signingKeys(of: user.username)
            if !keys.contains(key) {
                keys.append(key)
                try await portal.saveSigningKeys(keys, of: user.username)
                try await portal.audit(AuditActor(try call.requireUser(), address: call.clientAddress), "registered a signing key", "user \(user.username)", key.fingerprint)
            }
            return json(call, .object(["success": .bool(true), "fingerprint": .string(key.fingerprint)]))
        }
        endpoint(router, "\(base)/remove", portal, methods: [.post]) { call, context in
            let user = try await owner(call, context)
            let fingerprint = call["fingerprint"] ?? ""
            let keys = try await portal.signingKeys(of: user.username)
            guard keys.contains(where: { $0.fingerprint == fingerprint }) else {
                throw PortalError.badRequest("\(user.username) has no signing key with the fingerprint '\(fingerprint)'.")
            }
            try await portal.saveSigningKeys(keys.filter { $0.fingerprint != fingerprint }, of: user.username)
            try await portal.audit(AuditActor(try call.requireUser(), address: call.clientAddress), "removed a signing key", "user \(user.username)", fingerprint)
            return json(call, .object(["success": .bool(true)]))
        }
        endpoint(router, "\(prefix)/portals/self/signingKeys", portal) { call, _ in
            _ = try call.requireUser()
            let keys: [JSONValue] = try await portal.organizationSigningKeys().map {
                // The portal's own key has no user (it signs what the portal makes).
                .object(["username": $0.username.isEmpty ? .null : .string($0.username), "fingerprint": .string($0.key.fingerprint), "publicKey": .string($0.key.pem)])
            }
            return json(call, .object(["requirePackageSignatures": .bool(try await portal.requiresSignatures()), "keys": .array(keys)]))
        }
        endpoint(router, "\(prefix)/portals/self/update", portal, methods: [.post]) { call, _ in
            let admin = try call.requireUser()
            guard admin.isAdmin else { throw PortalError.forbidden }
            if let value = call["requirePackageSignatures"]?.lowercased() {
                guard value == "true" || value == "false" else { throw PortalError.badRequest("'requirePackageSignatures' is true or false.") }
                try await portal.store.setSetting(Portal.requireSignaturesSetting, value)
                try await portal.audit(AuditActor(admin, address: call.clientAddress), "changed the organization's settings", "organization", "requirePackageSignatures \(value)")
            }
            return json(call, .object(["success": .bool(true)]))
        }
    }
}
