import MapbookPackage
import NIOSSL

/// Which server certificates the client accepts.
public enum PortalTrust: Sendable, Equatable {
    /// The system's trust roots (the usual case: a portal with a certificate from a public CA).
    case system
    /// The system's roots plus the certificates in a PEM file: a private CA, or a self-signed
    /// server certificate such as the one `mapbook portal serve --self-signed` makes
    /// (`DATA/tls/certificate.pem`, its own CA, naming 127.0.0.1 and localhost).
    case certificate(path: String)
    /// No verification at all: anyone on the way can read and change the traffic, tokens
    /// included. For a first look at a test portal only.
    case insecure

    /// The TLS settings for this trust; reads and checks the PEM file now, so a missing or
    /// broken file is reported before any connection is tried.
    func tlsConfiguration() throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch self {
        case .system:
            break
        case .certificate(let path):
            let certificates: [NIOSSLCertificate]
            do {
                certificates = try NIOSSLCertificate.fromPEMFile(path)
            } catch {
                throw PortalClientError(
                    .usage, url: path, message: "cannot read the CA certificate: \(error); give a PEM file (the portal's DATA/tls/certificate.pem)")
            }
            guard !certificates.isEmpty else {
                throw PortalClientError(.usage, url: path, message: "holds no PEM certificate; give the portal's certificate or its CA's")
            }
            tls.additionalTrustRoots = [.certificates(certificates)]
        case .insecure:
            tls.certificateVerification = .none
        }
        return tls
    }

    /// The bytes of the PEM certificate file at `path`, checked to hold a certificate: what a
    /// library keeps from `--ca-cert`.
    public static func certificateFile(_ path: String) throws -> [UInt8] {
        let bytes: [UInt8]
        do {
            let file = try RandomAccessFile(path: path)
            guard file.size <= 1 << 20 else {
                throw PortalClientError(.usage, url: path, message: "is larger than 1 MiB; give a PEM certificate file")
            }
            bytes = try file.read(at: 0, count: Int(file.size))
        } catch let error as PortalClientError {
            throw error
        } catch {
            throw PortalClientError(.usage, url: path, message: "cannot read the CA certificate: \(error)")
        }
        guard ((try? NIOSSLCertificate.fromPEMBytes(bytes))?.isEmpty == false) else {
            throw PortalClientError(
                .usage, url: path, message: "is not a PEM certificate; give the portal's certificate or its CA's (DATA/tls/certificate.pem for `mapbook portal serve --self-signed`)")
        }
        return bytes
    }
}
