import CSQLite

/// Records the changes made to a database's tables through one connection as a changeset in
/// SQLite's session format (the format Mergin Maps' geodiff reads and writes): inserts with
/// their rows, updates with the old and new values of the columns that changed, deletes with
/// the old rows, keyed by each table's primary key.
///
/// The corresponding C functions are `sqlite3session_create`, `sqlite3session_attach`,
/// `sqlite3session_changeset` and `sqlite3session_delete`.
public final class SQLiteSession {
    let database: SQLiteDatabase
    private var handle: OpaquePointer?

    /// Starts recording on `database`'s main schema: `tables` only, or every table with a
    /// primary key when nil.
    public init(_ database: SQLiteDatabase, tables: [String]? = nil) throws(SQLiteError) {
        self.database = database
        var session: OpaquePointer?
        let status = sqlite3session_create(database.handle, "main", &session)
        guard status == SQLITE_OK, let session else { throw database.error("start recording changes on", status) }
        handle = session
        if let tables {
            for table in tables {
                let attached = sqlite3session_attach(session, table)
                guard attached == SQLITE_OK else { throw database.error("record changes to \(table) on", attached) }
            }
        } else {
            let attached = sqlite3session_attach(session, nil)
            guard attached == SQLITE_OK else { throw database.error("record changes on", attached) }
        }
    }

    deinit { if let handle { sqlite3session_delete(handle) } }

    /// The changes recorded so far, as a changeset (empty when nothing changed).
    public func changeset() throws(SQLiteError) -> [UInt8] {
        var size: Int32 = 0
        var bytes: UnsafeMutableRawPointer?
        let status = sqlite3session_changeset(handle, &size, &bytes)
        guard status == SQLITE_OK else { throw database.error("collect the changes of", status) }
        defer { sqlite3_free(bytes) }
        return size > 0 ? Array(UnsafeRawBufferPointer(start: bytes, count: Int(size))) : []
    }
}

/// What applying a changeset found that does not match the database.
public enum SQLiteChangesetConflict: Sendable, Equatable {
    /// An update or delete whose old values differ from the row's current ones.
    case data
    /// An update or delete of a row that is not there.
    case notFound
    /// An insert of a primary key that is already there.
    case conflict
    /// A change that would break a constraint (NOT NULL, UNIQUE, CHECK).
    case constraint
    case foreignKey

    init?(_ code: Int32) {
        switch code {
        case SQLITE_CHANGESET_DATA: self = .data
        case SQLITE_CHANGESET_NOTFOUND: self = .notFound
        case SQLITE_CHANGESET_CONFLICT: self = .conflict
        case SQLITE_CHANGESET_CONSTRAINT: self = .constraint
        case SQLITE_CHANGESET_FOREIGN_KEY: self = .foreignKey
        default: return nil
        }
    }
}

/// What to do with a conflicting change: skip it, apply it over the row (for `data` and
/// `conflict` only), or stop and undo the whole changeset.
public enum SQLiteChangesetAction: Sendable {
    case omit, replace, abort
}

private final class ConflictHandler {
    let body: (SQLiteChangesetConflict, String) -> SQLiteChangesetAction
    init(_ body: @escaping (SQLiteChangesetConflict, String) -> SQLiteChangesetAction) { self.body = body }
}

extension SQLiteDatabase {
    /// Applies `changeset` in one transaction (the session API's own savepoint): every change,
    /// or none when `onConflict` says abort (then the error's kind is `.interrupted`). The handler
    /// gets the conflict and the table.
    ///
    /// The corresponding C function is `sqlite3changeset_apply`.
    public func apply(changeset: [UInt8], onConflict: @escaping (SQLiteChangesetConflict, String) -> SQLiteChangesetAction) throws(SQLiteError) {
        let handler = Unmanaged.passRetained(ConflictHandler(onConflict))
        defer { handler.release() }
        var bytes = changeset
        let status = bytes.withUnsafeMutableBytes { buffer in
            sqlite3changeset_apply(
                handle, Int32(buffer.count), buffer.baseAddress, nil,
                { context, kind, iterator in
                    let handler = Unmanaged<ConflictHandler>.fromOpaque(context!).takeUnretainedValue()
                    var table: UnsafePointer<CChar>?
                    var columns: Int32 = 0, operation: Int32 = 0, indirect: Int32 = 0
                    sqlite3changeset_op(iterator, &table, &columns, &operation, &indirect)
                    let name = table.map { String(cString: $0) } ?? ""
                    guard let conflict = SQLiteChangesetConflict(kind) else { return SQLITE_CHANGESET_ABORT }
                    switch handler.body(conflict, name) {
                    case .omit: return SQLITE_CHANGESET_OMIT
                    case .replace: return conflict == .data || conflict == .conflict ? SQLITE_CHANGESET_REPLACE : SQLITE_CHANGESET_OMIT
                    case .abort: return SQLITE_CHANGESET_ABORT
                    }
                },
                handler.toOpaque())
        }
        guard status == SQLITE_OK else { throw error("apply a changeset to", status) }
    }
}
