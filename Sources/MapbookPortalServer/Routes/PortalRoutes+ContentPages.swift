import Hummingbird
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport
import NIOPosix

extension PortalRoutes {
    /// Results per page of the item lists.
    static let listPageSize = 20

    static let sortFields: [(value: String, label: String)] = [
        ("modified", "Date modified"), ("created", "Date created"), ("title", "Title"), ("owner", "Owner"), ("type", "Type"), ("size", "Size"), ("numViews", "Views"),
    ]

    /// An item list (home, search, content): the API's `q` grammar, its sort and paging, run
    /// by the store for `viewer` (the store pages, so a page costs the same at any size);
    /// with `scope`, only that user's items.
    static func itemList(
        _ call: PageRequest, _ portal: Portal, _ pages: PortalPages, viewer: ItemViewer, scope: String?, heading: String, action: String, intro: String? = nil
    ) async throws -> Response {
        let q = call["q"] ?? ""
        let sortField = (call["sortField"] ?? "").isEmpty ? "modified" : call["sortField"]!
        let sortOrder = (call["sortOrder"] ?? "").isEmpty ? (call["sortField"] ?? "").isEmpty ? "desc" : "asc" : call["sortOrder"]!
        var values: [String: Any] = [
            "heading": heading, "q": q, "action": action,
            "sortFieldOptions": pages.options("sortField", sortFields, selected: sortField),
            "sortOrderOptions": pages.options("sortOrder", [("asc", "Ascending"), ("desc", "Descending")], selected: sortOrder),
        ]
        if scope != nil { values["uploadHref"] = "/home/upload.html" }
        if let intro, !intro.isEmpty { values["intro"] = intro }
        do {
            var text = q
            if let scope { text = "owner:\"\(scope)\"" + (q.trimmingWhitespace().isEmpty ? "" : " AND (\(q))") }
            let query = try ItemQuery.parse(text)
            let sort = try ItemSort(sortField: sortField, sortOrder: sortOrder)
            let page = try SearchPage(start: call["start"], num: String(listPageSize))
            let result = try await portal.store.searchItems(ItemSearch(query: query, viewer: viewer, group: nil, sort: sort, page: page))
            // One string for the whole list: Mustache looks each name up through casts of
            // `Any`, which for twenty sections cost a fifth of a list page's time.
            values["listings"] = result.items.map { pages.listing($0, values: listing) }.joined()
            if result.total == 0 {
                values["summary"] = q.isEmpty ? "There are no items here yet." : "No items match."
            } else if result.items.isEmpty {
                values["summary"] = "This page is past the last of \(Format.count(result.total, "item"))."
            } else {
                values["summary"] = "\(result.start) to \(result.start + result.items.count - 1) of \(Format.count(result.total, "item"))"
            }
            func link(_ start: Int) -> String {
                "\(action)?q=\(FormEncoding.percentEncode(q))&sortField=\(sortField)&sortOrder=\(sortOrder)&start=\(start)"
            }
            if result.start > 1 { values["previous"] = link(max(1, result.start - listPageSize)) }
            if result.nextStart > 0 { values["next"] = link(result.nextStart) }
        } catch let error as PortalError {
            values["error"] = ([error.message] + error.details).joined(separator: " ")
        }
        return PortalResponse.html(pages.render("items", values, frame: call.frame))
    }

    /// The upload page: a new item, or (`id`) a new version of one the user may change.
    static func uploadPage(_ call: PageRequest, _ portal: Portal, _ pages: PortalPages) async throws -> Response {
        guard let user = call.user else { return signInFirst(call) }
        var values: [String: Any] = ["heading": "Upload a new item", "username": user.username, "itemId": ""]
        if let id = call["id"] {
            let record = try await pageItem(id, call, portal)
            guard portal.canWrite(record, user), record.item.name != nil else {
                throw PageError(kind: .forbidden, heading: "Not yours to change", message: "Only the item's owner or an administrator can upload a new version of its file.")
            }
            values["heading"] = "Upload a new version"
            values["item"] = ["title": record.item.title, "href": "/home/item.html?id=\(id)"]
            values["itemId"] = id
            // The API's update is under the owner's content, whoever sends it.
            values["username"] = record.item.owner
        }
        return PortalResponse.html(pages.render("upload", values, frame: call.frame))
    }

    /// One item in a list: thumbnail, title, type, owner, date, sharing, size, summary.
    static func listing(_ item: PortalItem) -> [String: Any] {
        var values: [String: Any] = [
            "title": item.title, "href": "/home/item.html?id=\(item.id)", "type": item.type, "owner": item.owner,
            "modified": String(ISODate.format(milliseconds: item.modified).prefix(10)), "access": accessLabel(item.access),
        ]
        if item.thumbnail != nil { values["thumbnail"] = "/home/items/\(item.id)/thumbnail" }
        if item.size > 0 { values["size"] = Format.bytes(item.size) }
        if let snippet = item.snippet, !snippet.isEmpty { values["snippet"] = HTMLText.plain(snippet, collapsing: true) }
        return values
    }

    static func accessLabel(_ access: ItemAccess) -> String {
        switch access {
        case .public: "Everyone"
        case .org: "Organization"
        case .shared: "Groups"
        case .private: "Owner"
        }
    }

    /// An item's page: what it is, who owns it, how it is shared, and for a package its maps,
    /// layers, bookmarks, locators and expiration.
    static func itemPage(_ call: PageRequest, _ portal: Portal, _ pages: PortalPages) async throws -> Response {
        let record = try await pageItem(call["id"] ?? "", call, portal)
        let item = record.item
        var values = listing(item)
        values["created"] = ISODate.formatMinutes(milliseconds: item.created)
        values["modified"] = ISODate.formatMinutes(milliseconds: item.modified)
        values["sharing"] = try await sharingText(record, call, portal)
        let tags = item.tags.filter { !$0.isEmpty }.map { ["name": $0, "href": "/home/search.html?q=\(FormEncoding.percentEncode("tags:\"\($0)\""))"] }
        values["tags"] = tags
        values["has_tags"] = !tags.isEmpty
        let description = paragraphs(item.description ?? "")
        values["description"] = description
        values["has_description"] = !description.isEmpty
        if let credits = item.accessInformation, !credits.isEmpty { values["credits"] = HTMLText.plain(credits, collapsing: true) }
        if let license = item.licenseInfo, !license.isEmpty { values["license"] = HTMLText.plain(license, collapsing: true) }
        if item.name != nil { values["download"] = "/home/items/\(item.id)/data" }
        if item.type == Portal.webMapType, Portal.madeFrom(record) != nil { values["openMap"] = "/home/webmap.html?id=\(item.id)" }
        if portal.canWrite(record, call.user), record.item.name != nil { values["updateHref"] = "/home/upload.html?id=\(item.id)" }
        if let user = call.user, portal.canWrite(record, user) {
            values["admin"] = try await versionValues(record, call, portal)
            values["sharingForm"] = try await sharingValues(record, user, call, portal)
        }
        if item.type == PackageManifest.mobileMapPackageType {
            var package = try await packageValues(record, portal)
            // The live preview of its maps, one at a time (each map is a WebGL context).
            if pages.hasMapLibre, let maps = package["maps"] as? [[String: Any]], !maps.isEmpty {
                package["preview"] = [
                    "base": "/home/items/\(item.id)/maps", "several": maps.count > 1,
                    "choices": maps.enumerated().map { ["number": $0.offset + 1, "name": $0.element["name"] ?? "Map \($0.offset + 1)"] },
                ] as [String: Any]
            }
            values["package"] = package
        }
        if let expiration = (values["package"] as? [String: Any])?["expiration"] {
            values["expiration"] = expiration
            values["expired"] = (values["package"] as? [String: Any])?["expired"] ?? false
        }
        return PortalResponse.html(pages.render("item", values, frame: call.frame))
    }

    /// Who the item is shared with, naming the groups the visitor may see.
    static func sharingText(_ record: ItemRecord, _ call: PageRequest, _ portal: Portal) async throws -> String {
        switch record.item.access {
        case .public: return "Everyone (public)"
        case .org: return "Everyone in the organization"
        case .shared, .private:
            var names: [String] = []
            for id in record.groups {
                if let group = try await portal.store.group(id), portal.canSee(group, call.user) { names.append(group.title) }
            }
            return names.isEmpty ? (record.groups.isEmpty ? "The owner only" : "Groups") : "Groups: " + names.joined(separator: ", ")
        }
    }

    /// A description as paragraphs of text: whatever HTML it holds shows as its text, never as markup.
    static func paragraphs(_ html: String) -> [String] {
        var text = html
        for breaking in ["<br>", "<br/>", "<br />", "</p>", "</div>", "</li>", "</h1>", "</h2>", "</h3>"] {
            text = text.replacingAll(breaking, with: "\n").replacingAll(breaking.uppercased(), with: "\n")
        }
        return HTMLText.plain(text).split(separator: "\n").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
    }

    /// The package part of an item page.
    static func packageValues(_ record: ItemRecord, _ portal: Portal) async throws -> [String: Any] {
        let summary: PackageSummary
        do {
            guard let read = try await packageSummary(record, portal) else { return ["problem": "The package's file is missing."] }
            summary = read
        } catch let error as PortalStoreError {
            throw error
        } catch {
            return ["problem": "The package's file cannot be read; mapbook validate on the file says why."]
        }
        let id = record.item.id
        var values: [String: Any] = [
            "maps": summary.maps.enumerated().map { i, map in
                var values: [String: Any] = [
                    "name": map.name, "layers": map.layers, "has_layers": !map.layers.isEmpty, "bookmarks": map.bookmarks, "has_bookmarks": !map.bookmarks.isEmpty,
                    "layerCount": Format.count(map.layers.count, "layer"), "bookmarkCount": Format.count(map.bookmarks.count, "bookmark"),
                ]
                // Always set, false when absent: a missing key would show the item's own value.
                values["snippet"] = map.snippet.flatMap { $0.isEmpty ? nil : $0 } ?? false
                values["thumbnail"] = map.thumbnail == nil ? false : "/home/items/\(id)/maps/\(i + 1)/thumbnail"
                return values
            },
            "locators": summary.locators, "has_locators": !summary.locators.isEmpty,
        ]
        if let expiration = summary.expiration, let when = expiration.dateTime {
            let passed = when <= TokenService.now()
            let date = String(ISODate.format(milliseconds: when).prefix(10))
            let blocks = expiration.kind == .preventExpiredAccess
            values["expiration"] = passed ? (blocks ? "Expired \(date): devices no longer open it" : "Expired \(date)") : (blocks ? "Expires \(date); devices will not open it after" : "Expires \(date)")
            values["expired"] = passed
        }
        return values
    }

    /// The package's summary for its current version, read once.
    static func packageSummary(_ record: ItemRecord, _ portal: Portal) async throws -> PackageSummary? {
        if let kept = portal.packageSummaries.summary(id: record.item.id, version: record.dataVersion) { return kept }
        guard let opened = try await portal.openPackage(record) else { return nil }
        let summary = try await NIOThreadPool.singleton.runIfActive { try PackageSummary(package: opened.package) }
        portal.packageSummaries.keep(summary, id: record.item.id, version: record.dataVersion)
        return summary
    }
}
