import PostgresNIO

/// The statements a page or an API call runs every time (the change log's ends, a token,
/// a user), prepared once on each connection: PostgreSQL then neither
/// parses nor plans them again, which under the list pages' load was half of its time
/// (docs/PERFORMANCE.md, "Portal pages").
enum PostgresHotStatements {
    struct LogEnds: PostgresPreparedStatement {
        static let sql = "SELECT coalesce(min(serial), 0), coalesce(max(serial), 0) FROM item_changes"
        typealias Row = (Int64, Int64)
        func makeBindings() -> PostgresBindings { PostgresBindings() }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }


    struct Token: PostgresPreparedStatement {
        static let sql = "SELECT hash, kind, username, client_id, referer, created, expires, code_challenge, redirect_uri FROM tokens WHERE hash = $1"
        typealias Row = (String, String, String, String?, String?, Int64, Int64, String?, String?)
        var hash: String
        func makeBindings() -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(hash)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    struct User: PostgresPreparedStatement {
        static let sql = "SELECT \(PostgresPortalStore.userColumns) FROM users WHERE username_key = $1"
        typealias Row = (String, String, String, String, String, String, Int64, Int64, Bool)
        var key: String
        func makeBindings() -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(key)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }
}
