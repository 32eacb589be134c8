import Testing
import MapbookPortalAPI

/// Sorting search results by `sortField` and `sortOrder`.
@Suite struct ItemSortTests {
    static let items = ItemQueryTests.items

    func titles(_ sortField: String?, _ sortOrder: String? = nil) throws -> [String] {
        try ItemSort(sortField: sortField, sortOrder: sortOrder).sorted(Self.items).map(\.title)
    }

    @Test func byTitleIgnoringCase() throws {
        let lowerCase = PortalItem(id: "b1", owner: "erin", created: 0, modified: 0, title: "land use", type: "Web Map")
        let sorted = try ItemSort(sortField: "title", sortOrder: "asc").sorted(Self.items + [lowerCase]).map(\.title)
        #expect(Array(sorted.prefix(4)) == ["Field Crew App", "Lake County Water", "land use", "Naperville Basemap"])
        #expect(try titles("TITLE", "DESC").first == "World Countries")
    }

    @Test func byDatesAndCounts() throws {
        #expect(try titles("created", "desc").prefix(2) == ["Field Crew App", "Water Main Breaks"])
        #expect(try titles("uploaded").first == "World Countries")
        #expect(try titles("numViews", "desc").prefix(2) == ["World Countries", "Portland Street Trees"])
        #expect(try titles("size", "desc").first == "Naperville Basemap")
    }

    /// Equal keys go by item id, whichever the order: pages of one search never repeat or skip.
    @Test func tiesGoByIdInEitherOrder() throws {
        // Naperville Water (…01) and Water Main Breaks (…05) were modified at the same moment.
        #expect(try titles("modified", "desc").prefix(2) == ["Naperville Water", "Water Main Breaks"])
        // The arcgis client's default, avgRating desc: every rating is 0 here, so by id.
        #expect(try titles("avgRating", "desc") == Self.items.map(\.title))
        #expect(try titles(nil) == Self.items.map(\.title))
    }

    @Test func severalFieldsInOrder() throws {
        #expect(
            try titles("owner, title") == [
                "Field Crew App", "Naperville Water", "Water Main Breaks", "Naperville Basemap", "Naperville Sewer",
                "Portland Street Trees", "Lake County Water", "World Countries",
            ])
    }

    /// Unknown names are ignored (clients send names that vary by release); a bad order is an error.
    @Test func unknownFieldsAreIgnoredAndBadOrdersRefused() throws {
        #expect(try ItemSort(sortField: "added,title", sortOrder: nil) == ItemSort(keys: [.title]))
        #expect(try ItemSort(sortField: "", sortOrder: "") == ItemSort(keys: []))
        #expect(throws: PortalError.self) { try ItemSort(sortField: "title", sortOrder: "ascending") }
    }
}
