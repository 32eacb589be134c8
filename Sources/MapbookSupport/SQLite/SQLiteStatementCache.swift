/// Prepared statements kept by their SQL, for code that runs the same few statements
/// thousands of times (a sync merging 10,000 changes): preparing is most of a small
/// statement's cost. The statements live as long as the cache; drop it before closing.
public final class SQLiteStatementCache {
    public let database: SQLiteDatabase
    private var statements: [String: SQLiteStatement] = [:]

    public init(_ database: SQLiteDatabase) {
        self.database = database
    }

    /// Runs `sql` with `bindings` and returns every row, as `SQLiteDatabase.query` does.
    @discardableResult
    public func query(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        let statement: SQLiteStatement
        if let kept = statements[sql] {
            statement = kept
        } else {
            statement = try database.prepare(sql)
            statements[sql] = statement
        }
        statement.reset()
        try statement.bind(bindings)
        var rows: [[SQLiteValue]] = []
        do {
            while try statement.step() { rows.append(statement.row()) }
        } catch {
            statement.reset()
            throw error
        }
        statement.reset()
        return rows
    }

    /// The first column of the first row, or nil.
    public func scalar(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) -> SQLiteValue? {
        try query(sql, bindings).first?.first
    }
}
