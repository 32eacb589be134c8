/// An item field that `q` can name, and how its values compare.
///
/// The names are the search reference's item fields that this portal keeps, plus `name` (the
/// data file's name, which the `arcgis` client's Workforce module searches).
enum ItemQueryField: String, CaseIterable {
    case id, owner, orgid, group, access
    case title, tags, snippet, description, type, typekeywords, name, culture, accessinformation
    case created, modified, numviews, numratings, numcomments, avgrating

    /// How a field's values are compared.
    enum Kind {
        /// Whole values, ignoring case: ids, user names, access levels.
        case exact
        /// Words, ignoring case and punctuation; a phrase matches words in a row.
        case text
        /// Epoch milliseconds and counts.
        case number
    }

    /// The fields a term without a field searches: the search reference's default item fields.
    static let defaultFields: [ItemQueryField] = [.title, .tags, .snippet, .description, .type, .typekeywords]

    /// The field `name` stands for (any case, aliases resolved), or nil for a field this portal
    /// does not know.
    init?(name: String) {
        switch name.lowercased() {
        // The Python client appends `accountid:<org id>` to keep searches inside the org.
        case "accountid": self = .orgid
        // The older name of the creation date, still in the client's sort and query docs.
        case "uploaded": self = .created
        case let other: self.init(rawValue: other)
        }
    }

    var kind: Kind {
        switch self {
        case .id, .owner, .orgid, .group, .access: .exact
        case .title, .tags, .snippet, .description, .type, .typekeywords, .name, .culture, .accessinformation: .text
        case .created, .modified, .numviews, .numratings, .numcomments, .avgrating: .number
        }
    }
}
