import Hummingbird
import MapbookPortalAPI
import MapbookSupport

extension PortalRoutes {
    /// Item search: `search` over everything the caller may see, and
    /// `content/groups/{id}/search` over one group's items.
    static func search(_ router: Router<PortalContext>, _ portal: Portal) {
        endpoint(router, "\(prefix)/search", portal) { call, _ in
            json(call, try await searchItems(call, portal, within: nil))
        }
        endpoint(router, "\(prefix)/content/groups/:id/search", portal) { call, context in
            let id = try context.parameters.require("id")
            guard PortalPaths.isItemId(id), let group = try await portal.store.group(id), portal.canSee(group, call.user) else { throw groupNotFound(id) }
            return json(call, try await searchItems(call, portal, within: group.id))
        }
    }

    static func searchItems(_ call: PortalRequest, _ portal: Portal, within group: String?) async throws -> JSONValue {
        let q = call["q"] ?? ""
        let query = try ItemQuery.parse(q)
        let sort = try ItemSort(sortField: call["sortField"], sortOrder: call["sortOrder"])
        let page = try SearchPage(start: call["start"], num: call["num"])
        let viewer = portal.viewer(call.user, groups: try await portal.memberGroups(call.user))
        let result = try await portal.store.searchItems(ItemSearch(query: query, viewer: viewer, group: group, sort: sort, page: page))
        return .object([
            "query": .string(q),
            "total": .integer(Int64(result.total)),
            "start": .integer(Int64(result.start)),
            "num": .integer(Int64(result.num)),
            "nextStart": .integer(Int64(result.nextStart)),
            "results": .array(result.items.map(\.jsonValue)),
        ])
    }
}
