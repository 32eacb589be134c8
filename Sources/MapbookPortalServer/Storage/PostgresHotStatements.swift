import PostgresNIO

/// The statements a page or an API call runs every time (the change log's ends, a token, a
/// user), prepared once on each connection: PostgreSQL then neither parses nor plans them
/// again, which under the list pages' load was half of its time (docs/PERFORMANCE.md,
/// "Portal pages").
enum PostgresHotStatements {
    struct LogEnds: PostgresPreparedStatement {
        static let sql = "SELECT coalesce(min(serial), 0), coalesce(max(serial), 0) FROM item_changes"
        typealias Row = (Int64, Int64)
        func makeBindings() -> PostgresBindings { PostgresBindings() }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    struct Token: KeyedStatement {
        static let sql = "SELECT \(PostgresPortalStore.tokenColumns) FROM tokens WHERE hash = $1"
        typealias Row = (String, String, String, String?, String?, Int64, Int64, String?, String?)
        var key: String
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// A token with its user's row (empty when the user is gone).
    struct TokenAndUser: KeyedStatement {
        static let sql = """
            SELECT t.hash, t.kind, t.username, t.client_id, t.referer, t.created, t.expires, t.code_challenge, t.redirect_uri,
              u.username, u.id, u.full_name, u.email, u.role, u.password, u.created, u.modified, u.disabled
            FROM tokens t LEFT JOIN users u ON u.username_key = t.username_key WHERE t.hash = $1
            """
        typealias Row = (Token.Row, User.Row?)
        var key: String
        func decodeRow(_ row: PostgresRow) throws -> Row {
            let (h, kind, username, client, referer, created, expires, challenge, redirect, u, id, name, email, role, password, userCreated, modified, disabled) =
                try row.decode((String, String, String, String?, String?, Int64, Int64, String?, String?, String?, String?, String?, String?, String?, String?, Int64?, Int64?, Bool?).self)
            let token = (h, kind, username, client, referer, created, expires, challenge, redirect)
            guard let u, let id, let name, let email, let role, let password, let userCreated, let modified, let disabled else { return (token, nil) }
            return (token, (u, id, name, email, role, password, userCreated, modified, disabled))
        }
    }

    struct User: KeyedStatement {
        static let sql = "SELECT \(PostgresPortalStore.userColumns) FROM users WHERE username_key = $1"
        typealias Row = (String, String, String, String, String, String, Int64, Int64, Bool)
        var key: String
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }
}

/// A statement whose one parameter is a text key (a token's hash, a user's name).
protocol KeyedStatement: PostgresPreparedStatement {
    var key: String { get }
}

extension KeyedStatement {
    func makeBindings() -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(key)
        return bindings
    }
}
