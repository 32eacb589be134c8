/// Portal item ids as the device library accepts them.
///
/// Ids come from a server and become file names in the library, so only letters and digits
/// pass: a hostile id (`../x`, `a/b`, an empty string, a dot) can never name a file outside
/// the library's folders. ArcGIS ids are 32 lowercase hex digits; other portals' ids of up to
/// 64 ASCII letters and digits are accepted too.
public enum ItemID {
    /// The longest id accepted.
    public static let maximumLength = 64

    /// Whether `id` is 1 to 64 ASCII letters and digits.
    public static func isValid(_ id: String) -> Bool {
        let bytes = id.utf8
        guard (1...maximumLength).contains(bytes.count) else { return false }
        return bytes.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    }

    /// Throws unless `id` is valid; `path` names where it came from.
    static func check(_ id: String, from path: String) throws(LibraryError) {
        guard isValid(id) else {
            let shown = id.utf8.count > 80 ? String(id.prefix(80)) + "…" : id
            throw LibraryError(
                kind: .invalidItemID, path: path,
                message: "'\(shown.debugDescription.dropFirst().dropLast())' is not a portal item id (1 to \(maximumLength) letters and digits); refusing to use it as a file name")
        }
    }
}
