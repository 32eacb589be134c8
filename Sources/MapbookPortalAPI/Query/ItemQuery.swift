/// A portal search query (`q`), parsed: words, phrases and ranges in item fields, joined by
/// AND, OR and NOT, as `search`, group content search and the user content listing take it.
///
/// Parse a `q` once with `parse(_:)`, then ask `matches(_:groups:)` of each item. The grammar,
/// the documents it follows and where it departs from ArcGIS Online are described at the top
/// of `ItemQueryParser.swift`.
public indirect enum ItemQuery: Sendable, Equatable {
    /// Every item: an empty or blank `q`, or a lone `*`.
    case all
    /// A word or a phrase in `field`, or in the default fields (title, tags, snippet,
    /// description, type, type keywords) when `field` is nil.
    ///
    /// `field` is a lower-case name with aliases resolved (`accountid` is `orgid`, `uploaded` is
    /// `created`). `phrase` is true for a quoted value: its words must follow one another and
    /// `*` and `?` in it are plain characters. `prefix` is true when the value ended in a `*`,
    /// which is not kept in `value`. Otherwise `*` and `?` in `value` are wildcards.
    case term(field: String?, value: String, phrase: Bool, prefix: Bool)
    /// Values between `lower` and `upper` (nil for an open `*` end), both bounds included or
    /// both excluded. Dates and counts compare as numbers, text as lower-case strings.
    case range(field: String, lower: String?, upper: String?, inclusive: Bool)
    case and(ItemQuery, ItemQuery)
    case or(ItemQuery, ItemQuery)
    case not(ItemQuery)

    /// The longest `q` accepted, in Unicode scalars.
    public static let maximumLength = 4000
    /// How deep parentheses and NOT, `+` and `-` may nest.
    public static let maximumDepth = 64

    /// Parses a `q` parameter.
    ///
    /// Throws `PortalError.badRequest` naming the position (1-based, in Unicode scalars) and
    /// the problem: an unclosed quote, parenthesis or range, an operator with nothing to join,
    /// a date that is not epoch milliseconds, or a query past the length or depth limit.
    public static func parse(_ q: String) throws(PortalError) -> ItemQuery {
        var parser = ItemQueryParser(q)
        return try parser.parse()
    }
}
