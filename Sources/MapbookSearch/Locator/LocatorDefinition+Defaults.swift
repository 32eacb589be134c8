extension LocatorDefinition {
    /// Field names that name a feature, most telling first (compared ignoring case).
    static let nameFields = [
        "name", "fullname", "full_name", "title", "label", "maplabel", "displayname", "display_name", "common", "common_name",
        "commonname", "sitename", "site_name", "name_en", "nameascii", "name_long",
    ]

    /// Whether a field's name says it holds a name or an address, text a user reads as it is,
    /// rather than a code (`FACILITYID`, `IATA`, `tree_id`).
    static func isNameLike(_ field: String) -> Bool {
        let f = field.lowercased()
        return nameFields.contains(f) || ["name", "addr", "title", "label", "street"].contains { f.contains($0) }
    }

    /// What a result shows when the locator names no display field: a search field that holds
    /// a name or an address shows itself (nil); a code shows the layer's first name-like field
    /// beside it ("Portland International [PDX]"), if it has one.
    public static func defaultDisplayField(searchField: String, fields: [String]) -> String? {
        guard !isNameLike(searchField) else { return nil }
        return nameField(in: fields.filter { $0 != searchField })
    }

    /// The field of `candidates` that most likely holds a feature's name (`name`,
    /// `FULLNAME`, ...), if any.
    public static func nameField(in candidates: [String]) -> String? {
        for wanted in nameFields {
            if let match = candidates.first(where: { $0.lowercased() == wanted }) { return match }
        }
        return candidates.first { f in
            let l = f.lowercased()
            return l.contains("name") && !l.hasSuffix("id") && !l.hasSuffix("_code")
        }
    }
}
