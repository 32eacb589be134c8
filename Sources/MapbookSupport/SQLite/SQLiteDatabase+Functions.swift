import CSQLite

/// A scalar SQL function's Swift body, kept alive by SQLite until the function is replaced
/// or the connection closes (its destructor releases it).
private final class SQLiteFunctionBox {
    let body: ([SQLiteValue]) -> SQLiteValue
    init(_ body: @escaping ([SQLiteValue]) -> SQLiteValue) { self.body = body }
}

extension SQLiteValue {
    /// The value SQLite hands a function or a changeset iterator (`sqlite3_value`).
    init(_ v: OpaquePointer) {
        switch sqlite3_value_type(v) {
        case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(v))
        case SQLITE_FLOAT: self = .real(sqlite3_value_double(v))
        case SQLITE_TEXT: self = .text(sqlite3_value_text(v).map { String(cString: $0) } ?? "")
        case SQLITE_BLOB:
            let n = Int(sqlite3_value_bytes(v))
            self = .blob(n > 0 ? Array(UnsafeRawBufferPointer(start: sqlite3_value_blob(v), count: n)) : [])
        default: self = .null
        }
    }
}

extension SQLiteDatabase {
    /// Registers a deterministic scalar function `name` of `argumentCount` arguments on this
    /// connection: what GeoPackage's R-tree triggers call (`ST_IsEmpty`, `ST_MinX`, ...) when
    /// a feature table is written outside GDAL.
    ///
    /// The corresponding C function is `sqlite3_create_function_v2`.
    public func defineFunction(_ name: String, argumentCount: Int32, _ body: @escaping ([SQLiteValue]) -> SQLiteValue) throws(SQLiteError) {
        let box = Unmanaged.passRetained(SQLiteFunctionBox(body)).toOpaque()
        let status = sqlite3_create_function_v2(
            handle, name, argumentCount, SQLITE_UTF8 | SQLITE_DETERMINISTIC, box,
            { context, count, arguments in
                let box = Unmanaged<SQLiteFunctionBox>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
                let values = (0..<Int(count)).map { SQLiteValue(arguments![$0]!) }
                switch box.body(values) {
                case .null: sqlite3_result_null(context)
                case .integer(let i): sqlite3_result_int64(context, i)
                case .real(let d): sqlite3_result_double(context, d)
                case .text(let s): sqlite3_result_text(context, s, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                case .blob(let b): b.withUnsafeBytes { sqlite3_result_blob(context, $0.baseAddress, Int32($0.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self)) }
                }
            },
            nil, nil,
            { pointer in if let pointer { Unmanaged<SQLiteFunctionBox>.fromOpaque(pointer).release() } })
        guard status == SQLITE_OK else { throw error("define the function \(name) on", status) }
    }
}
