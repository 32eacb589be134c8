import MapbookPortalAPI
import MapbookSupport

/// What a search found: `total` matches in all, `items` of them here.
public struct SearchResults: Sendable {
    public var total: Int64
    /// Where the next page starts (1-based); -1 when there is none.
    public var nextStart: Int64
    public var items: [PortalItem]

    /// The `q` of a search for `text` (the portal's query grammar, kept whole in parentheses)
    /// among items of `type` ("any": every type) owned by `owner`, joined with AND; `*` for
    /// everything.
    public static func query(text: String?, type: String, owner: String?) -> String {
        var terms: [String] = []
        if let text, text.contains(where: { !$0.isWhitespace }) { terms.append("(\(text))") }
        if type.lowercased() != "any" { terms.append("type:\"\(type)\"") }
        if let owner { terms.append("owner:\"\(owner)\"") }
        return terms.isEmpty ? "*" : terms.joined(separator: " AND ")
    }

    /// The items as `mapbook portal search` prints them: a table of title (48 characters at
    /// most), owner, modified, size and id, then how many of how many were shown.
    public var lines: [String] {
        guard !items.isEmpty else { return ["No items found."] }
        let rows = items.map { item in
            [String(item.title.prefix(48)), item.owner, ISODate.formatMinutes(milliseconds: item.modified), Format.bytes(item.size), item.id]
        }
        let shown = items.count
        return Format.table([["TITLE", "OWNER", "MODIFIED (UTC)", "SIZE", "ID"]] + rows, rightAligned: [3])
            + [total > Int64(shown) ? "\(shown) of \(total) items (--max shows more)" : Format.count(shown, "item")]
    }
}
