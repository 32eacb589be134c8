import MapbookSupport

extension SQLiteDatabase {
    /// Opens a database stored as a byte range of a package (a stored entry), read-only and in
    /// place.
    public convenience init(range: ByteRange, displayPath: String) throws(SQLiteError) {
        if let remote = range.file.remote {
            try self.init(offset: range.offset, length: range.length, displayPath: displayPath) { buffer, position in
                do {
                    try remote.read(into: buffer, at: position)
                    return nil
                } catch {
                    return "\(error)"
                }
            }
        } else {
            try self.init(path: range.file.path, offset: range.offset, length: range.length, displayPath: displayPath)
        }
    }
}
