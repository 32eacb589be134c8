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

    /// The text fields' positions from 0 (a document keeps their words in an array, not a
    /// dictionary hashed on every test); nil for a field of another kind.
    var textPosition: Int? {
        switch self {
        case .title: 0
        case .tags: 1
        case .snippet: 2
        case .description: 3
        case .type: 4
        case .typekeywords: 5
        case .name: 6
        case .culture: 7
        case .accessinformation: 8
        default: nil
        }
    }

    static let textFieldCount = 9

    /// The exact fields' positions from 0, as `textPosition` is for the text fields.
    var exactPosition: Int? {
        switch self {
        case .id: 0
        case .owner: 1
        case .orgid: 2
        case .group: 3
        case .access: 4
        default: nil
        }
    }

    static let exactFieldCount = 5

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
