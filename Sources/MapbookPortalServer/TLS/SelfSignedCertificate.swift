import Crypto
import FoundationEssentials
import SwiftASN1
import X509

/// A certificate and key for a first run (`--self-signed`): made once, kept in the data folder
/// (`tls/certificate.pem`, `tls/key.pem`, the key 0600) and reused, so a client that trusted
/// it once (`--ca-cert`) keeps trusting it.
///
/// It is its own authority (basic constraints CA, path length 0), the way `openssl req -x509`
/// makes one, so it can serve as the trust root a client is given; it names localhost,
/// 127.0.0.1, ::1 and the host the server listens on.
public enum SelfSignedCertificate {
    public struct PEM: Sendable {
        public var certificate: String
        public var key: String
    }

    public static func make(host: String, now: Date = Date(), days: Int = 825) throws -> PEM {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName(host.isEmpty ? "localhost" : host)
            OrganizationName("Mapbook portal (self-signed)")
        }
        var names: [GeneralName] = [.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
            .ipAddress(ASN1OctetString(contentBytes: ArraySlice([UInt8](repeating: 0, count: 15) + [1])))]
        if let v4 = ipv4(host), v4 != [127, 0, 0, 1] {
            names.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(v4))))
        } else if !host.isEmpty, host != "localhost", ipv4(host) == nil, !host.contains(":") {
            names.append(.dnsName(host))
        }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames(names)
        }
        var serial = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for i in serial.indices { serial[i] = UInt8.random(in: 0...255, using: &generator) }
        serial[0] &= 0x7F
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(bytes: serial), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(Double(days) * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: .init(key))
        return PEM(certificate: try certificate.serializeAsPEM().pemString, key: key.pemRepresentation)
    }

    static func ipv4(_ s: String) -> [UInt8]? {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let bytes = parts.compactMap { UInt8($0) }
        return bytes.count == 4 ? bytes : nil
    }
}
