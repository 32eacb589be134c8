extension ItemQuery {
    /// Whether `item` is one this query finds.
    ///
    /// `groups`: ids of the groups the item is shared with, which `group:<id>` compares.
    /// Text fields match by words, ignoring case and punctuation; ids, owners, organization ids,
    /// access and groups match whole values ignoring case; dates and counts as numbers.
    /// Does not check who may see the item: the caller filters by access first.
    public func matches(_ item: PortalItem, groups: [String]) -> Bool {
        ItemSearchDocument(item: item, groups: groups).satisfies(self)
    }

    /// Whether the item `document` describes matches, with the words it has kept.
    package func matches(_ document: ItemSearchDocument) -> Bool {
        document.satisfies(self)
    }
}
