import MapbookPortalAPI
import PostgresNIO

/// An item search as one PostgreSQL statement with bound parameters: who may see what, one
/// group, the `q` conditions (`ItemQuery.condition`) tested on the items' stored search
/// documents (column `search`, `ItemQuery.searchDocument`), the order and the page. Nothing
/// from the request is written into the SQL text: values, patterns and field names are bound.
struct PostgresSearchSQL {
    private(set) var binds = PostgresBindings()

    /// A placeholder for `value`.
    mutating func bind<T: PostgresNonThrowingEncodable>(_ value: T) -> String {
        binds.append(value)
        return "$\(binds.count)"
    }

    /// The statement: the page's rows, each with the count of all matches.
    static func statement(_ search: ItemSearch, offset: Int, limit: Int) -> PostgresQuery {
        var sql = PostgresSearchSQL()
        let filter = sql.filter(search)
        let order = search.sort.keys.map { key in
            let value = "search->'s'->>\(sql.bind(key.rawValue))"
            let expression = Self.numericSortKeys.contains(key) ? "(\(value))::bigint" : "(\(value)) COLLATE \"C\""
            return expression + (search.sort.descending ? " DESC" : "")
        } + ["id COLLATE \"C\""]
        let text = """
            SELECT id, status, item::text, groups::text, sha256, version, count(*) OVER () FROM items
            WHERE \(filter)
            ORDER BY \(order.joined(separator: ", "))
            LIMIT \(sql.bind(limit)) OFFSET \(sql.bind(offset))
            """
        return PostgresQuery(unsafeSQL: text, binds: sql.binds)
    }

    /// How many items the search finds (for a page past the end, which has no rows to count).
    static func count(_ search: ItemSearch) -> PostgresQuery {
        var sql = PostgresSearchSQL()
        let filter = sql.filter(search)
        return PostgresQuery(unsafeSQL: "SELECT count(*) FROM items WHERE \(filter)", binds: sql.binds)
    }

    static let numericSortKeys: Set<ItemSort.Key> = [.created, .modified, .numViews, .size, .avgRating, .numRatings, .numComments]

    /// Committed items the viewer may see (public; for a signed-in user their own, every item
    /// of an admin, `org` items, items shared with their groups), in the group if one is
    /// named, that the query finds.
    mutating func filter(_ search: ItemSearch) -> String {
        let viewer = search.viewer
        var visible = "item->>'access' = 'public'"
        if let username = viewer.username {
            visible += viewer.isAdmin ? " OR TRUE" : " OR owner_key = \(bind(PostgresPortalStore.key(username))) OR item->>'access' = 'org'"
            if !viewer.groups.isEmpty { visible += " OR groups ?| \(bind(Array(viewer.groups).sorted()))::text[]" }
        }
        var clauses = ["status = 'ready'", "(\(visible))"]
        if let group = search.group { clauses.append("groups ? \(bind(group))") }
        clauses.append(condition(search.query.condition))
        return clauses.joined(separator: " AND ")
    }

    /// The SQL test of one condition.
    mutating func condition(_ c: ItemQueryCondition) -> String {
        switch c {
        case .constant(let value): return value ? "TRUE" : "FALSE"
        case .and(let a, let b): return "(\(condition(a)) AND \(condition(b)))"
        case .or(let a, let b): return "(\(condition(a)) OR \(condition(b)))"
        case .not(let a): return "(NOT \(condition(a)))"
        case .textMatches(let fields, let pattern):
            return "EXISTS (SELECT 1 FROM jsonb_array_elements_text(\(values("t", fields))) v WHERE v ~ \(bind(pattern)))"
        case .textPresent(let fields):
            return "jsonb_array_length(\(values("t", fields))) > 0"
        case .textRange(let field, let lower, let upper, let inclusive):
            let words = "jsonb_array_elements_text(\(values("t", [field]))) v, unnest(string_to_array(v, ' ')) w"
            return "EXISTS (SELECT 1 FROM \(words) WHERE \(within("w COLLATE \"C\"", lower, upper, inclusive: inclusive)))"
        case .exactEquals(let field, let value):
            return "EXISTS (SELECT 1 FROM jsonb_array_elements_text(\(values("x", [field]))) v WHERE v = \(bind(value)))"
        case .exactPrefix(let field, let value):
            return "EXISTS (SELECT 1 FROM jsonb_array_elements_text(\(values("x", [field]))) v WHERE starts_with(v, \(bind(value))))"
        case .exactMatches(let field, let pattern):
            return "EXISTS (SELECT 1 FROM jsonb_array_elements_text(\(values("x", [field]))) v WHERE v ~ \(bind(pattern)))"
        case .exactRange(let field, let lower, let upper, let inclusive):
            return "EXISTS (SELECT 1 FROM jsonb_array_elements_text(\(values("x", [field]))) v WHERE \(within("v COLLATE \"C\"", lower, upper, inclusive: inclusive)))"
        case .numberEquals(let field, let value):
            return "(search->'n'->>\(bind(field)))::float8 = \(bind(value))"
        case .numberRange(let field, let lower, let upper, let inclusive):
            return within("(search->'n'->>\(bind(field)))::float8", lower, upper, inclusive: inclusive)
        }
    }

    /// The values of `fields` of one part of the document (`t` text, `x` exact), as one array.
    private mutating func values(_ part: String, _ fields: [String]) -> String {
        fields.map { "(search->'\(part)'->\(bind($0)))" }.joined(separator: " || ")
    }

    private mutating func within<T: PostgresNonThrowingEncodable>(_ expression: String, _ lower: T?, _ upper: T?, inclusive: Bool) -> String {
        var tests: [String] = []
        if let lower { tests.append("\(expression) \(inclusive ? ">=" : ">") \(bind(lower))") }
        if let upper { tests.append("\(expression) \(inclusive ? "<=" : "<") \(bind(upper))") }
        return tests.isEmpty ? "TRUE" : tests.joined(separator: " AND ")
    }
}
