import Hummingbird
import MapbookPortalAPI
import MapbookSupport

extension PortalRoutes {
    static func groupNotFound(_ id: String) -> PortalError {
        PortalError(code: 400, messageCode: "COM_0010", message: "Group does not exist or is inaccessible.", details: [id])
    }

    /// Groups: search, read, create, members, delete. Items shared with a group are visible to
    /// its members.
    static func groups(_ router: Router<PortalContext>, _ portal: Portal) {
        endpoint(router, "\(prefix)/community/groups", portal) { call, _ in
            let q = call["q"] ?? ""
            let query = try ItemQuery.parse(q)
            let sort = try ItemSort(sortField: call["sortField"] ?? "title", sortOrder: call["sortOrder"])
            let page = try SearchPage(start: call["start"], num: call["num"])
            var byId: [String: GroupRecord] = [:]
            var found: [PortalItem] = []
            for group in try await portal.store.groups() where portal.canSee(group, call.user) {
                // Groups are matched with the item grammar through an item-shaped stand-in.
                let standIn = PortalItem(
                    id: group.id, owner: group.owner, orgId: portal.orgId, created: group.created, modified: group.modified, title: group.title,
                    type: "Group", description: group.description, snippet: group.snippet, tags: group.tags,
                    access: ItemAccess(rawValue: group.access) ?? .private)
                if query.matches(standIn, groups: []) {
                    found.append(standIn)
                    byId[group.id] = group
                }
            }
            let result = page.apply(sort.sorted(found))
            return json(call, .object([
                "query": .string(q),
                "total": .integer(Int64(result.total)),
                "start": .integer(Int64(result.start)),
                "num": .integer(Int64(result.num)),
                "nextStart": .integer(Int64(result.nextStart)),
                "results": .array(result.results.compactMap { byId[$0.id].map { groupJSON($0, user: call.user, orgId: portal.orgId) } }),
            ]))
        }
        endpoint(router, "\(prefix)/community/groups/:id", portal) { call, context in
            let group = try await visibleGroup(call, context, portal)
            return json(call, groupJSON(group, user: call.user, orgId: portal.orgId))
        }
        endpoint(router, "\(prefix)/community/groups/:id/users", portal) { call, context in
            let group = try await visibleGroup(call, context, portal)
            return json(call, .object([
                "owner": .string(group.owner), "admins": .array([.string(group.owner)]),
                "users": .array(group.members.filter { $0.lowercased() != group.owner.lowercased() }.map { .string($0) }),
            ]))
        }
        endpoint(router, "\(prefix)/community/createGroup", portal, methods: [.post]) { call, _ in
            let user = try call.requireUser()
            let group = try await portal.createGroup(
                by: user, from: call.clientAddress, title: call["title"] ?? "", access: call["access"]?.lowercased() ?? "private", capabilities: list(call["capabilities"]).map { $0.lowercased() },
                snippet: call["snippet"], description: call["description"], tags: list(call.parameters.values["tags"]))
            return json(call, .object(["success": .bool(true), "group": groupJSON(group, user: user, orgId: portal.orgId)]))
        }
        for verb in ["addUsers", "removeUsers"] {
            endpoint(router, "\(prefix)/community/groups/:id/\(verb)", portal, methods: [.post]) { call, context in
                let group = try await managedGroup(call, context, portal)
                let (_, failed) = try await portal.changeMembers(
                    of: group, list(call["users"]), adding: verb == "addUsers", by: try call.requireUser(), from: call.clientAddress)
                return json(call, .object([verb == "addUsers" ? "notAdded" : "notRemoved": .array(failed.map { .string($0) })]))
            }
        }
        endpoint(router, "\(prefix)/community/groups/:id/delete", portal, methods: [.post]) { call, context in
            let group = try await managedGroup(call, context, portal)
            try await portal.deleteGroup(group, by: try call.requireUser(), from: call.clientAddress)
            return json(call, .object(["success": .bool(true), "groupId": .string(group.id)]))
        }
    }

    static func visibleGroup(_ call: PortalRequest, _ context: PortalContext, _ portal: Portal) async throws -> GroupRecord {
        let id = try context.parameters.require("id")
        guard PortalPaths.isItemId(id), let group = try await portal.store.group(id), portal.canSee(group, call.user) else { throw groupNotFound(id) }
        return group
    }

    /// A group the caller owns (or any group, for an admin).
    static func managedGroup(_ call: PortalRequest, _ context: PortalContext, _ portal: Portal) async throws -> GroupRecord {
        let user = try call.requireUser()
        let group = try await visibleGroup(call, context, portal)
        guard user.isAdmin || group.owner.lowercased() == user.username.lowercased() else { throw PortalError.forbidden }
        return group
    }

    static func groupJSON(_ g: GroupRecord, user: UserRecord?, orgId: String) -> JSONValue {
        var membership = "none"
        if let user {
            if g.owner.lowercased() == user.username.lowercased() {
                membership = "owner"
            } else if g.members.contains(where: { $0.lowercased() == user.username.lowercased() }) {
                membership = "member"
            }
        }
        return .object([
            "id": .string(g.id), "title": .string(g.title), "isInvitationOnly": .bool(true), "owner": .string(g.owner),
            "description": g.description.map { .string($0) } ?? .null, "snippet": g.snippet.map { .string($0) } ?? .null,
            "tags": .array(g.tags.map { .string($0) }), "typeKeywords": .array([]), "phone": .null, "sortField": .string("title"),
            "sortOrder": .string("asc"), "isViewOnly": .bool(false), "thumbnail": .null, "created": .integer(g.created),
            "modified": .integer(g.modified), "access": .string(g.access), "capabilities": .array(g.capabilities.map { .string($0) }), "isFav": .bool(false),
            "isReadOnly": .bool(false), "protected": .bool(false), "autoJoin": .bool(false), "notificationsEnabled": .bool(false),
            "provider": .null, "providerGroupName": .null, "leavingDisallowed": .bool(false), "hiddenMembers": .bool(false),
            "displaySettings": .object(["itemTypes": .string("")]), "orgId": .string(orgId),
            "userMembership": .object(["username": user.map { .string($0.username) } ?? .null, "memberType": .string(membership)]),
        ])
    }
}
