import CSQLite

/// One row's change in a changeset (SQLiteSession's format).
public struct SQLiteChange: Sendable, Equatable {
    public enum Operation: String, Sendable { case insert, update, delete }
    public var table: String
    public var operation: Operation
    /// The row before, per column: every column for a delete; for an update the primary key
    /// and the columns that changed (nil for the others); empty for an insert.
    public var old: [SQLiteValue?]
    /// The row after: every column for an insert, the changed columns for an update (nil for
    /// the others), empty for a delete.
    public var new: [SQLiteValue?]
    /// Which columns make the table's primary key.
    public var primaryKey: [Bool]

    public init(table: String, operation: Operation, old: [SQLiteValue?], new: [SQLiteValue?], primaryKey: [Bool]) {
        self.table = table
        self.operation = operation
        self.old = old
        self.new = new
        self.primaryKey = primaryKey
    }
}

/// Reading and combining changesets without a database: what a sync needs to merge column by
/// column instead of row by row.
///
/// The corresponding C functions are `sqlite3changeset_start`, `sqlite3changeset_next`,
/// `sqlite3changeset_op`, `sqlite3changeset_old`, `sqlite3changeset_new`,
/// `sqlite3changeset_pk` and the `sqlite3changegroup_*` family.
public enum SQLiteChangeset {
    /// Every change in `bytes`, in order. `source` names the changeset in errors.
    public static func changes(_ bytes: [UInt8], source: String) throws(SQLiteError) -> [SQLiteChange] {
        guard !bytes.isEmpty else { return [] }
        var copy = bytes
        let result: Result<[SQLiteChange], SQLiteError> = copy.withUnsafeMutableBytes { buffer in
            var iterator: OpaquePointer?
            let started = sqlite3changeset_start(&iterator, Int32(buffer.count), buffer.baseAddress)
            guard started == SQLITE_OK, let iterator else { return .failure(failure(source, "read the changeset", started)) }
            defer { sqlite3changeset_finalize(iterator) }
            var changes: [SQLiteChange] = []
            while true {
                let status = sqlite3changeset_next(iterator)
                if status == SQLITE_DONE { break }
                guard status == SQLITE_ROW else { return .failure(failure(source, "read the changeset", status)) }
                var table: UnsafePointer<CChar>?
                var columns: Int32 = 0, operation: Int32 = 0, indirect: Int32 = 0
                guard sqlite3changeset_op(iterator, &table, &columns, &operation, &indirect) == SQLITE_OK else {
                    return .failure(failure(source, "read the changeset", SQLITE_CORRUPT))
                }
                var pk: UnsafeMutablePointer<UInt8>?
                var pkColumns: Int32 = 0
                sqlite3changeset_pk(iterator, &pk, &pkColumns)
                let primaryKey = (0..<Int(columns)).map { i in pk.map { $0[i] != 0 } ?? false }
                let kind: SQLiteChange.Operation
                switch operation {
                case SQLITE_INSERT: kind = .insert
                case SQLITE_DELETE: kind = .delete
                default: kind = .update
                }
                func values(_ read: (OpaquePointer, Int32, UnsafeMutablePointer<OpaquePointer?>) -> Int32) -> [SQLiteValue?] {
                    (0..<columns).map { i in
                        var value: OpaquePointer?
                        guard read(iterator, i, &value) == SQLITE_OK, let value else { return nil }
                        return SQLiteValue(value)
                    }
                }
                changes.append(SQLiteChange(
                    table: table.map { String(cString: $0) } ?? "", operation: kind,
                    old: kind == .insert ? [] : values(sqlite3changeset_old),
                    new: kind == .delete ? [] : values(sqlite3changeset_new),
                    primaryKey: primaryKey))
            }
            return .success(changes)
        }
        return try result.get()
    }

    /// One changeset with the net effect of `changesets` applied in order: an insert then an
    /// update is an insert of the final row, an insert then a delete is nothing, two updates
    /// are one from the first old values to the last new ones.
    public static func combine(_ changesets: [[UInt8]], source: String) throws(SQLiteError) -> [UInt8] {
        var group: OpaquePointer?
        let created = sqlite3changegroup_new(&group)
        guard created == SQLITE_OK, let group else { throw failure(source, "combine changesets", created) }
        defer { sqlite3changegroup_delete(group) }
        for changeset in changesets where !changeset.isEmpty {
            var copy = changeset
            let added = copy.withUnsafeMutableBytes { sqlite3changegroup_add(group, Int32($0.count), $0.baseAddress) }
            guard added == SQLITE_OK else { throw failure(source, "combine changesets", added) }
        }
        var size: Int32 = 0
        var bytes: UnsafeMutableRawPointer?
        let status = sqlite3changegroup_output(group, &size, &bytes)
        guard status == SQLITE_OK else { throw failure(source, "combine changesets", status) }
        defer { sqlite3_free(bytes) }
        return size > 0 ? Array(UnsafeRawBufferPointer(start: bytes, count: Int(size))) : []
    }

    static func failure(_ source: String, _ operation: String, _ status: Int32) -> SQLiteError {
        let message = status == SQLITE_CORRUPT ? "the changeset is damaged" : String(cString: sqlite3_errstr(status))
        return SQLiteError(path: source, operation: operation, message: message, code: status)
    }
}
