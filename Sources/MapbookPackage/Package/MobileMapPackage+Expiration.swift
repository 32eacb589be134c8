#if canImport(Glibc)
import Glibc
#endif
import MapbookSupport

/// A package past its expiration date whose type is `preventExpiredAccess`: nothing may show
/// or change its data any more (DESIGN.md 3.1).
public struct PackageExpiredError: Error, Sendable, CustomStringConvertible {
    public var path: String
    /// The package's title, else its path.
    public var title: String
    /// The expiration date, `YYYY-MM-DD` (UTC).
    public var date: String
    /// The package's own message, when it has one.
    public var message: String?

    public var description: String {
        "'\(title)' expired on \(date) and can no longer be opened" + (message.map { ": " + $0 } ?? "")
    }
}

extension MobileMapPackage {
    /// Now, in epoch milliseconds.
    public static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// Whether the package's data may be shown or changed at `now` (epoch milliseconds): nil
    /// before its expiration date or without one; past it, the notice to show once for
    /// `allowExpiredAccess`; `PackageExpiredError` for `preventExpiredAccess`.
    ///
    /// Inspecting and validating are not access to the data, and do not call this.
    public func expirationNotice(now: Int64 = MobileMapPackage.now()) throws(PackageExpiredError) -> String? {
        guard let expiration = manifest.expiration, let when = expiration.dateTime, when <= now else { return nil }
        let title = manifest.title ?? path
        let date = String(ISODate.format(milliseconds: when).prefix(10))
        if expiration.kind == .preventExpiredAccess {
            throw PackageExpiredError(path: path, title: title, date: date, message: expiration.message)
        }
        return "'\(title)' expired on \(date)" + (expiration.message.map { ": " + $0 } ?? "")
    }
}
