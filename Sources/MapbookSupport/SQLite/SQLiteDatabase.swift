import CMapbookVFS
import CSQLite

/// A SQLite failure, naming the database, what was being done and SQLite's message.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for callers and tests to switch on: SQLite's primary result code
    /// (https://sqlite.org/rescode.html), or a failure of this wrapper itself.
    public enum Kind: Sendable, Hashable {
        /// `SQLITE_NOTADB`: the file is not a SQLite database.
        case notADatabase
        /// `SQLITE_CORRUPT`: the database file is damaged.
        case corrupt
        /// `SQLITE_CANTOPEN`: the file cannot be opened (missing, a folder, no permission).
        case cannotOpen
        /// `SQLITE_READONLY`: a write to a database opened or stored read-only.
        case readOnly
        /// `SQLITE_BUSY` or `SQLITE_LOCKED`: another connection holds a lock.
        case busy
        /// `SQLITE_FULL`: the disk is full.
        case full
        /// `SQLITE_IOERR`: the operating system failed a read or write.
        case ioError
        /// `SQLITE_PERM` or `SQLITE_AUTH`: access denied.
        case permissionDenied
        /// `SQLITE_CONSTRAINT`: a UNIQUE, NOT NULL, CHECK or foreign-key constraint failed.
        case constraint
        /// `SQLITE_TOOBIG`: a string or blob past the length limit.
        case tooBig
        /// `SQLITE_NOMEM`: SQLite ran out of memory.
        case outOfMemory
        /// `SQLITE_INTERRUPT` or `SQLITE_ABORT`: the operation was interrupted or rolled back.
        case interrupted
        /// `SQLITE_MISMATCH`, `SQLITE_RANGE`: a value of the wrong type or a bad parameter index.
        case mismatch
        /// `SQLITE_SCHEMA`: the schema changed under a prepared statement.
        case schemaChanged
        /// `SQLITE_MISUSE`: the library was called out of order.
        case misuse
        /// `SQLITE_ERROR`: an SQL error, such as a missing table or a syntax error.
        case sql
        /// The "mapbook-range" VFS, which reads databases in place inside a package, could not
        /// be registered.
        case vfsUnavailable
        /// `SQLITE_INTERNAL`, `SQLITE_PROTOCOL`, `SQLITE_NOLFS` or a code SQLite documents as
        /// unused: a fault inside SQLite or its VFS, not in the file; `code` says which.
        case internalFailure

        /// The kind of an SQLite result code, primary or extended.
        public init(resultCode: Int32) {
            switch resultCode & 0xFF {
            case SQLITE_NOTADB: self = .notADatabase
            case SQLITE_CORRUPT: self = .corrupt
            case SQLITE_CANTOPEN: self = .cannotOpen
            case SQLITE_READONLY: self = .readOnly
            case SQLITE_BUSY, SQLITE_LOCKED: self = .busy
            case SQLITE_FULL: self = .full
            case SQLITE_IOERR: self = .ioError
            case SQLITE_PERM, SQLITE_AUTH: self = .permissionDenied
            case SQLITE_CONSTRAINT: self = .constraint
            case SQLITE_TOOBIG: self = .tooBig
            case SQLITE_NOMEM: self = .outOfMemory
            case SQLITE_INTERRUPT, SQLITE_ABORT: self = .interrupted
            case SQLITE_MISMATCH, SQLITE_RANGE: self = .mismatch
            case SQLITE_SCHEMA: self = .schemaChanged
            case SQLITE_MISUSE: self = .misuse
            case SQLITE_ERROR: self = .sql
            default: self = .internalFailure
            }
        }
    }

    /// What went wrong; taken from `code` unless the wrapper itself failed.
    public var kind: Kind
    public var path: String
    public var operation: String
    public var message: String
    /// SQLite's result code, extended where SQLite gave one.
    public var code: Int32

    /// An error SQLite reported, its kind taken from the result code.
    public init(path: String, operation: String, message: String, code: Int32) {
        self.init(kind: Kind(resultCode: code), path: path, operation: operation, message: message, code: code)
    }

    public init(kind: Kind, path: String, operation: String, message: String, code: Int32) {
        self.kind = kind
        self.path = path
        self.operation = operation
        self.message = message
        self.code = code
    }

    public var description: String { "Cannot \(operation) '\(path)': \(message)" }
}

/// A value read from or bound to a SQLite statement.
public enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public var int64: Int64? {
        switch self {
        case .integer(let i): return i
        case .real(let d): return Int64(exactly: d.rounded())
        case .text(let s): return Int64(s)
        default: return nil
        }
    }

    public var double: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .real(let d): return d
        case .text(let s): return Double(s)
        default: return nil
        }
    }

    public var text: String? {
        switch self {
        case .text(let s): return s
        case .integer(let i): return String(i)
        case .real(let d): return String(d)
        default: return nil
        }
    }
}

/// An open SQLite connection.
///
/// Not Sendable: use a connection from one task at a time. Closed in `deinit` if not before.
public final class SQLiteDatabase {
    public let path: String
    var handle: OpaquePointer?
    /// The remote source this database is read from (`SQLiteRemoteSources`), or 0.
    private let remoteSource: Int64

    /// Opens the database file at `path` read-only and immutable: SQLite takes no locks and
    /// creates no journal, WAL or shm files, so third-party files are never touched.
    ///
    /// The corresponding C function is `sqlite3_open_v2`.
    public convenience init(readOnlyPath path: String) throws(SQLiteError) {
        try self.init(uri: "file:\(Self.uriEscape(path))?immutable=1", displayPath: path, flags: SQLITE_OPEN_READONLY)
        try distrustSchema()
    }

    /// Opens a database stored as `length` bytes at `offset` of a larger file (a stored package
    /// entry), read-only, through the "mapbook-range" VFS: nothing is extracted (DESIGN.md
    /// section 5).
    public convenience init(path: String, offset: Int64, length: Int64, displayPath: String) throws(SQLiteError) {
        let status = mapbook_vfs_register()
        guard status == SQLITE_OK else {
            throw SQLiteError(kind: .vfsUnavailable, path: displayPath, operation: "open", message: "cannot register the range VFS (\(status))", code: status)
        }
        let uri = "file:\(Self.uriEscape(path))?vfs=mapbook-range&offset=\(offset)&length=\(length)&immutable=1"
        try self.init(uri: uri, displayPath: displayPath, flags: SQLITE_OPEN_READONLY)
        try distrustSchema()
    }

    /// Opens a database stored as `length` bytes at `offset` of a file that is not on this
    /// machine, read-only: SQLite's page reads become `read(buffer, position)` calls (ranged
    /// requests to an object store, cached by the caller), through the same VFS.
    public convenience init(offset: Int64, length: Int64, displayPath: String, read: @escaping @Sendable (UnsafeMutableRawBufferPointer, Int64) -> String?) throws(SQLiteError) {
        let status = mapbook_vfs_register()
        guard status == SQLITE_OK else {
            throw SQLiteError(kind: .vfsUnavailable, path: displayPath, operation: "open", message: "cannot register the range VFS (\(status))", code: status)
        }
        let source = SQLiteRemoteSources.add(read)
        // The name only has to be unique: nothing is opened by it.
        let uri = "file:/remote-\(source)?vfs=mapbook-range&source=\(source)&offset=\(offset)&length=\(length)&immutable=1"
        try self.init(uri: uri, displayPath: displayPath, flags: SQLITE_OPEN_READONLY, remoteSource: source)
        try distrustSchema()
    }

    /// Stops SQL functions with side effects from running inside views and triggers of a file
    /// someone else wrote (https://sqlite.org/pragma.html#pragma_trusted_schema).
    private func distrustSchema() throws(SQLiteError) {
        try execute("PRAGMA trusted_schema = OFF")
    }

    /// Whether `name` is a real table (not a view or a virtual table), whose rows can be
    /// counted without running anything the file defines.
    public func isPlainTable(_ name: String) throws(SQLiteError) -> Bool {
        let sql = try scalar("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(name)])?.text
        guard let sql else { return false }
        return !sql.uppercased().hasPrefix("CREATE VIRTUAL")
    }

    /// Opens or creates a database for writing.
    public convenience init(writablePath path: String, create: Bool = true) throws(SQLiteError) {
        var flags = SQLITE_OPEN_READWRITE
        if create { flags |= SQLITE_OPEN_CREATE }
        try self.init(uri: "file:\(Self.uriEscape(path))", displayPath: path, flags: flags)
    }

    private init(uri: String, displayPath: String, flags: Int32, remoteSource: Int64 = 0) throws(SQLiteError) {
        path = displayPath
        self.remoteSource = remoteSource
        var db: OpaquePointer?
        let status = sqlite3_open_v2(uri, &db, flags | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close_v2(db)
            if remoteSource != 0 { SQLiteRemoteSources.remove(remoteSource) }
            throw SQLiteError(path: displayPath, operation: "open", message: message, code: status)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        // A damaged or hostile file must not make a query run forever or eat memory.
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 30)
        // Reading the schema is the first thing that fails on a file that is not a database.
        do {
            _ = try scalar("SELECT count(*) FROM sqlite_master")
        } catch {
            sqlite3_close_v2(db)
            handle = nil
            if remoteSource != 0 { SQLiteRemoteSources.remove(remoteSource) }
            throw SQLiteError(path: displayPath, operation: "open", message: error.kind == .notADatabase ? "not a SQLite database" : error.message, code: error.code)
        }
    }

    deinit {
        sqlite3_close_v2(handle)
        if remoteSource != 0 { SQLiteRemoteSources.remove(remoteSource) }
    }

    /// Closes the connection, reporting failure.
    ///
    /// Statements still alive are reset, which ends any read or write they had under way;
    /// SQLite frees the connection once the last of them is finalized.
    /// The corresponding C function is `sqlite3_close_v2`.
    public func close() throws(SQLiteError) {
        guard let handle else { return }
        resetStatements()
        let status = sqlite3_close_v2(handle)
        guard status == SQLITE_OK else {
            throw SQLiteError(path: path, operation: "close", message: String(cString: sqlite3_errmsg(handle)), code: status)
        }
        self.handle = nil
    }

    /// Resets every statement of the connection, ending the reads they may still hold open
    /// (a cursor not read to its end keeps its read transaction, and on a connection that
    /// takes locks a writer waits for it): for a connection kept between requests.
    public func resetStatements() {
        guard let handle else { return }
        var statement = sqlite3_next_stmt(handle, nil)
        while let s = statement {
            sqlite3_reset(s)
            statement = sqlite3_next_stmt(handle, s)
        }
    }

    func error(_ operation: String, _ status: Int32) -> SQLiteError {
        var message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
        // SQLite knows only that a remote read failed: the reader said why.
        if remoteSource != 0, let cause = SQLiteRemoteSources.takeFailure(remoteSource) { message += ": \(cause)" }
        return SQLiteError(path: path, operation: operation, message: message, code: status)
    }

    /// Prepares `sql` for repeated use.
    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw error("prepare a query on", status)
        }
        return SQLiteStatement(database: self, handle: statement)
    }

    /// Runs `sql` with `bindings` and returns every row.
    @discardableResult
    public func query(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        let statement = try prepare(sql)
        try statement.bind(bindings)
        var rows: [[SQLiteValue]] = []
        while try statement.step() {
            rows.append(statement.row())
        }
        return rows
    }

    /// The first column of the first row, or nil when there is no row.
    public func scalar(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) -> SQLiteValue? {
        let statement = try prepare(sql)
        try statement.bind(bindings)
        return try statement.step() ? statement.column(0) : nil
    }

    /// Runs statements that return no rows.
    public func execute(_ sql: String) throws(SQLiteError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw error("execute a statement on", status) }
    }

    /// Whether a table or view of this name exists.
    public func tableExists(_ name: String) throws(SQLiteError) -> Bool {
        try scalar("SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?", [.text(name)]) != nil
    }

    /// Quotes an identifier for SQL: `"name"` with inner quotes doubled.
    public static func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingAll("\"", with: "\"\"") + "\""
    }

    /// Escapes a path for a `file:` URI (RFC 3986 reserved characters SQLite interprets).
    static func uriEscape(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0..<0x21, 0x7F...:
                out += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            default:
                out.unicodeScalars.append(UnicodeScalar(byte))
            }
        }
        return out
    }
}

/// A prepared statement. Finalized in `deinit`.
public final class SQLiteStatement {
    let database: SQLiteDatabase
    let handle: OpaquePointer

    init(database: SQLiteDatabase, handle: OpaquePointer) {
        self.database = database
        self.handle = handle
    }

    deinit { sqlite3_finalize(handle) }

    // SQLITE_TRANSIENT: SQLite copies the bound bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (i, value) in values.enumerated() {
            try bind(value, at: Int32(i + 1))
        }
    }

    /// Binds one value to the 1-based parameter `index`, without resetting the statement.
    ///
    /// The corresponding C functions are the `sqlite3_bind_*` family.
    public func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        let status: Int32
        switch value {
        case .null: status = sqlite3_bind_null(handle, index)
        case .integer(let v): status = sqlite3_bind_int64(handle, index, v)
        case .real(let v): status = sqlite3_bind_double(handle, index, v)
        case .text(let v): status = sqlite3_bind_text(handle, index, v, -1, Self.transient)
        case .blob(let v):
            status = v.withUnsafeBytes { sqlite3_bind_blob64(handle, index, $0.baseAddress, sqlite3_uint64($0.count), Self.transient) }
        }
        guard status == SQLITE_OK else { throw database.error("bind a value on", status) }
    }

    /// Runs a statement that returns no rows (an INSERT) with the values bound so far, then
    /// resets it for the next use, keeping the bindings.
    public func run() throws(SQLiteError) {
        let status = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard status == SQLITE_DONE || status == SQLITE_ROW else { throw database.error("write", status) }
    }

    /// The rowid of the last row inserted through this statement's connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(database.handle) }

    /// Advances to the next row; false when done.
    public func step() throws(SQLiteError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error("query", status)
        }
    }

    public func reset() {
        sqlite3_reset(handle)
    }

    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    public func columnName(_ index: Int) -> String {
        sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? ""
    }

    public func column(_ index: Int) -> SQLiteValue {
        let i = Int32(index)
        switch sqlite3_column_type(handle, i) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, i))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, i))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, i) else { return .null }
            let count = Int(sqlite3_column_bytes(handle, i))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, i))
            guard count > 0, let bytes = sqlite3_column_blob(handle, i) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }

    public func row() -> [SQLiteValue] {
        (0..<columnCount).map(column)
    }

    /// Calls `body` with a blob column's bytes in place (valid only during the call, no copy);
    /// nil when the column does not hold a blob.
    ///
    /// The corresponding C functions are `sqlite3_column_type`, `sqlite3_column_blob` and
    /// `sqlite3_column_bytes`.
    public func withBlob<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T? {
        let i = Int32(index)
        guard sqlite3_column_type(handle, i) == SQLITE_BLOB else { return nil }
        let bytes = sqlite3_column_blob(handle, i)
        let count = Int(sqlite3_column_bytes(handle, i))
        return body(UnsafeRawBufferPointer(start: count > 0 ? bytes : nil, count: count))
    }
}
