import MapbookPackage
import MapbookSearch

/// The full validation of a package, as `mapbook validate` and the portal's publishing run it:
/// the format's checks (`PackageValidator`), then, when the archive itself is sound, the
/// locators' checks (every participant opens, its index covers its layer, the search-quality
/// queries find what they expect), and the street networks' (`NetworkCheck`).
public enum PackageCheck {
    public static func validate(path: String, options: ValidationOptions = ValidationOptions()) -> ValidationReport {
        var report = PackageValidator.validate(path: path, options: options)
        // A broken ZIP is reported once, by the format's checks; nothing above it can be read.
        if !report.diagnostics.contains(where: { $0.severity == .error && $0.code.hasPrefix("zip.") }),
            let package = try? MobileMapPackage(archive: ZipArchive(path: path), refusingBadSignature: false)
        {
            report.diagnostics += LocatorValidator.validate(package)
            report.diagnostics += NetworkCheck.findings(package)
        }
        return report
    }
}
