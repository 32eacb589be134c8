import MapbookPortalAPI

/// Reading items: one item, and search with paging.
extension PortalClient {
    /// The item `id` (`content/items/{id}`).
    ///
    /// An item that was deleted or is no longer shared with the user is the portal's
    /// `Item does not exist or is inaccessible` (`PortalError`, code 400, CONT_0001).
    public func item(_ id: String) async throws -> PortalItem {
        let object = try await call("content/items/\(FormEncoding.percentEncode(id))")
        return try PortalItem(json: .object(object), source: "\(restURL)/content/items/\(id)")
    }

    /// One page of a search: `start` is 1-based, `num` at most 100 (the API's cap).
    public func searchPage(_ q: String, sortField: String? = nil, sortOrder: String? = nil, start: Int = 1, num: Int = 100) async throws -> SearchResults {
        var fields: [(String, String)] = [("q", q), ("start", String(start)), ("num", String(min(max(num, 1), 100)))]
        if let sortField { fields.append(("sortField", sortField)) }
        if let sortOrder { fields.append(("sortOrder", sortOrder)) }
        let object = try await call("search", fields)
        var items: [PortalItem] = []
        for result in object.array("results") ?? [] {
            items.append(try PortalItem(json: result, source: "\(restURL)/search"))
        }
        return SearchResults(total: object.int64("total") ?? Int64(items.count), nextStart: object.int64("nextStart") ?? -1, items: items)
    }

    /// Every match up to `maximum`, page by page (`start`/`num`/`nextStart`), in the portal's order.
    public func search(_ q: String, sortField: String? = nil, sortOrder: String? = nil, maximum: Int = 100) async throws -> SearchResults {
        var items: [PortalItem] = []
        var start = 1
        var total: Int64 = 0
        var seen: Set<String> = []
        while items.count < maximum {
            let page = try await searchPage(q, sortField: sortField, sortOrder: sortOrder, start: start, num: min(100, maximum - items.count))
            total = page.total
            for item in page.items where items.count < maximum && seen.insert(item.id).inserted { items.append(item) }
            // nextStart is -1 at the end; a portal that does not move forward would loop.
            guard page.nextStart > Int64(start), !page.items.isEmpty else { break }
            start = Int(page.nextStart)
        }
        return SearchResults(total: total, nextStart: -1, items: items)
    }
}
