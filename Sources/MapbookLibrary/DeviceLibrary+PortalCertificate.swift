import MapbookPackage
import MapbookSupport

/// The portal's CA certificate: `portal-ca.pem`, given at sign-in (`--ca-cert`) and used by
/// every later command, so that a portal with a self-signed or private certificate is trusted
/// without `--insecure` and without repeating the file.
extension DeviceLibrary {
    var portalCertificatePath: String { root + "/portal-ca.pem" }

    /// The kept certificate's path; nil when none was given.
    public func portalCertificate() throws -> String? {
        try withLock(creating: false) { FileSystem.kind(portalCertificatePath) == .file ? portalCertificatePath : nil }
    }

    /// Keeps `pem` (a PEM certificate, not a secret) as the trust root of the library's portal.
    ///
    /// The library must be in portal mode; the certificate goes, with the credential, when
    /// the user signs out or the library leaves this portal.
    public func savePortalCertificate(_ pem: [UInt8]) throws {
        try withLock(creating: true) {
            _ = try requirePortalMode()
            try AtomicFile.write(pem, to: portalCertificatePath)
        }
    }
}
