import ArgumentParser
import MapbookPortal

/// How the portal commands trust the portal's certificate: `--ca-cert FILE` or `--insecure`,
/// else the certificate kept at sign-in, else the system's trust roots.
struct PortalConnectionOptions: ParsableArguments {
    @Option(
        name: .customLong("ca-cert"),
        help: ArgumentHelp(
            "Trust this PEM certificate too: a private CA, or a portal's self-signed certificate (DATA/tls/certificate.pem of `mapbook portal serve --self-signed`). Kept from sign-in for later commands.",
            valueName: "FILE"))
    var caCert: String?

    @Flag(name: .long, help: "Do not verify the portal's certificate at all: anyone on the way can read and change the traffic, password and tokens included. For a test portal only.")
    var insecure = false

    func validate() throws {
        if caCert != nil && insecure { throw ValidationError("give either --ca-cert FILE or --insecure, not both") }
    }

    /// The trust to use; `kept` is the certificate the library kept from sign-in.
    func trust(kept: String?) -> PortalTrust {
        if insecure {
            Output.error("""
                WARNING: --insecure: the portal's certificate is NOT verified. Anyone on the network path can \
                read and change what is sent, your password and tokens included. Use --ca-cert FILE instead.
                """)
            return .insecure
        }
        if let caCert { return .certificate(path: caCert) }
        if let kept { return .certificate(path: kept) }
        return .system
    }
}
