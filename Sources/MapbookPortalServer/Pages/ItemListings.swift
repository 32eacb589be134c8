import MapbookPortalAPI
import Synchronization

/// Items as the lists show them (the `listing` template), each rendered once for each state
/// of the item and kept: a list page shows twenty, and Mustache's rendering, a dynamic cast
/// for every value it looks up, cost more than all the rest of a list page together
/// (docs/PERFORMANCE.md, "Portal pages"). The key is everything the listing shows, so a
/// changed item is rendered anew and never shown as it was.
final class ItemListings: Sendable {
    /// What a listing shows of an item.
    struct Key: Hashable {
        var id: String
        var title: String
        var type: String
        var owner: String
        var modified: Int64
        var access: ItemAccess
        var hasThumbnail: Bool
        var size: Int64
        var snippet: String?

        init(_ item: PortalItem) {
            id = item.id
            title = item.title
            type = item.type
            owner = item.owner
            modified = item.modified
            access = item.access
            hasThumbnail = item.thumbnail != nil
            size = item.size
            snippet = item.snippet
        }
    }

    /// Listings kept at most: a few megabytes. When full, one kept listing makes room for
    /// each new one.
    static let limit = 20_000
    private let kept = Mutex<[Key: String]>([:])

    /// `item`'s listing: the kept one, or `render` of its values (kept from now on).
    func html(_ item: PortalItem, render: (PortalItem) -> String) -> String {
        let key = Key(item)
        if let html = kept.withLock({ $0[key] }) { return html }
        // Rendered outside the lock: two requests may both render a new item, and keep one.
        let html = render(item)
        kept.withLock { listings in
            if listings.count >= Self.limit, listings[key] == nil { listings.remove(at: listings.startIndex) }
            listings[key] = html
        }
        return html
    }
}
