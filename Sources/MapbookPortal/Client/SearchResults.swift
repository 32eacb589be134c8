import MapbookPortalAPI
/// What a search found: `total` matches in all, `items` of them here.
public struct SearchResults: Sendable {
    public var total: Int64
    /// Where the next page starts (1-based); -1 when there is none.
    public var nextStart: Int64
    public var items: [PortalItem]
}
