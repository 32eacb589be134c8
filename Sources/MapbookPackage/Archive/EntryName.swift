/// Checks an archive entry name for what would make extracting it unsafe.
public enum EntryName {
    /// Why `name` is unsafe to extract, or nil when it is a plain relative path.
    ///
    /// Refuses absolute paths, Windows drive letters, backslashes (a second separator on some
    /// systems), `..` components, empty names and control characters including NUL.
    public static func problem(_ name: String) -> String? {
        if name.isEmpty { return "the name is empty" }
        if name.hasPrefix("/") { return "the name is an absolute path" }
        if name.contains("\\") { return "the name contains a backslash, a path separator on Windows" }
        let scalars = Array(name.unicodeScalars)
        if scalars.count >= 2, scalars[1] == ":", scalars[0].properties.isAlphabetic {
            return "the name starts with a drive letter"
        }
        if scalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "the name contains a control character"
        }
        let components = name.split(separator: "/", omittingEmptySubsequences: false)
        if components.contains("..") { return "the name has a '..' component that climbs out of the target folder" }
        return nil
    }

    /// The name with `.` components and repeated or trailing slashes removed: two entries with
    /// the same normalised name would be written to the same file.
    public static func normalized(_ name: String) -> String {
        name.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
    }
}
