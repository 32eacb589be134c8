/// Checks an archive entry name for what would make extracting it unsafe.
public enum EntryName {
    /// Why `name` is unsafe to extract, or nil when it is a plain relative path.
    ///
    /// Refuses absolute paths, Windows drive letters, backslashes (a second separator on some
    /// systems), `..` components, empty names and control characters including NUL.
    public static func problem(_ name: String) -> String? {
        // One pass over the UTF-8 bytes, allocating nothing: this runs on every entry of
        // every package opened. Bytes of multi-byte characters are all 0x80 or above, so
        // the ASCII tests below cannot match inside them.
        let bytes = Array(name.utf8)
        if bytes.isEmpty { return "the name is empty" }
        if bytes[0] == UInt8(ascii: "/") { return "the name is an absolute path" }
        if bytes.count >= 2, bytes[1] == UInt8(ascii: ":"),
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(bytes[0] & 0xDF)
        {
            return "the name starts with a drive letter"
        }
        var componentStart = 0
        var backslash = false
        for i in 0...bytes.count {
            let byte = i < bytes.count ? bytes[i] : UInt8(ascii: "/")
            if byte < 0x20 || byte == 0x7F { return "the name contains a control character" }
            if byte == UInt8(ascii: "\\") { backslash = true }
            if byte == UInt8(ascii: "/") {
                if i - componentStart == 2, bytes[componentStart] == UInt8(ascii: "."), bytes[componentStart + 1] == UInt8(ascii: ".") {
                    return "the name has a '..' component that climbs out of the target folder"
                }
                componentStart = i + 1
            }
        }
        if backslash { return "the name contains a backslash, a path separator on Windows" }
        return nil
    }

    /// The name with `.` components and repeated or trailing slashes removed: two entries with
    /// the same normalised name would be written to the same file.
    public static func normalized(_ name: String) -> String {
        name.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
    }
}
