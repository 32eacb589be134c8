import MapbookPackage

/// Opening a package as its expiration says (DESIGN.md 3.1): past its date, a package with
/// `preventExpiredAccess` does not open and says its own message; one with
/// `allowExpiredAccess` opens with that message said once (the viewer shows it as a banner).
enum PackageAccess {
    /// What every command that shows or changes a package's data does first: refuses a package
    /// past its date with `preventExpiredAccess` (`PackageExpiredError`, with its own message),
    /// and prints the message of one with `allowExpiredAccess` once, on stderr.
    static func check(_ package: MobileMapPackage) throws(PackageExpiredError) {
        if let notice = try package.expirationNotice() { Output.error("note: \(notice)") }
    }
}
