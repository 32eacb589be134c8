#if canImport(Glibc)
import Glibc
#endif
import Crypto
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport

/// AWS Signature Version 4 for S3 requests (header form): what AWS S3, MinIO, Ceph, Garage and
/// OpenStack Swift's s3api all check.
///
/// Signed: the method, the path (each segment percent-encoded once, as S3 wants), the query
/// (sorted), `host`, every `x-amz-*` header, `range` and `content-type` when present, and the
/// payload's SHA-256 (or `UNSIGNED-PAYLOAD` for bodies streamed from a file).
public struct S3Signer: Sendable {
    public struct Credentials: Sendable, Equatable {
        public var accessKey: String
        public var secretKey: String
        public var region: String
    }

    public static let unsignedPayload = "UNSIGNED-PAYLOAD"

    public let credentials: Credentials

    /// The headers to add to a request: `x-amz-date`, `x-amz-content-sha256` and
    /// `authorization`. `headers` are the request's own (names in any case); `host` is
    /// `HOST[:PORT]` as sent.
    public func sign(method: String, host: String, path: String, query: [(String, String)], headers: [(String, String)],
                     payloadHash: String, date: Int64 = Int64(time(nil))) -> [(String, String)] {
        let (amzDate, day) = Self.timestamps(date)
        var signed: [(String, String)] = [("host", host), ("x-amz-content-sha256", payloadHash), ("x-amz-date", amzDate)]
        for (name, value) in headers {
            let lower = name.lowercased()
            if lower.hasPrefix("x-amz-") || lower == "range" || lower == "content-type" || lower == "content-md5" {
                signed.append((lower, value.trimming(" \t")))
            }
        }
        signed.sort { $0.0 < $1.0 }
        let signedNames = signed.map(\.0).joined(separator: ";")
        let encoded: [(String, String)] = query.map { (FormEncoding.percentEncode($0.0), FormEncoding.percentEncode($0.1)) }
        let sortedQuery = encoded.sorted { (a: (String, String), b: (String, String)) -> Bool in a.0 == b.0 ? a.1 < b.1 : a.0 < b.0 }
        let canonicalQuery = sortedQuery.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        let canonical = [
            method, Self.encodePath(path), canonicalQuery,
            signed.map { "\($0.0):\($0.1)\n" }.joined(), signedNames, payloadHash,
        ].joined(separator: "\n")
        let scope = "\(day)/\(credentials.region)/s3/aws4_request"
        let toSign = ["AWS4-HMAC-SHA256", amzDate, scope, SHA256Digest.hex(of: Array(canonical.utf8))].joined(separator: "\n")
        var key = SymmetricKey(data: Array("AWS4\(credentials.secretKey)".utf8))
        for part in [day, credentials.region, "s3", "aws4_request"] {
            key = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        let signature = SHA256Digest.hex(Array(HMAC<SHA256>.authenticationCode(for: Array(toSign.utf8), using: key)))
        return [
            ("x-amz-date", amzDate), ("x-amz-content-sha256", payloadHash),
            ("authorization", "AWS4-HMAC-SHA256 Credential=\(credentials.accessKey)/\(scope), SignedHeaders=\(signedNames), Signature=\(signature)"),
        ]
    }

    /// A path with each segment percent-encoded (RFC 3986 unreserved characters kept), `/` kept.
    public static func encodePath(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { FormEncoding.percentEncode(String($0)) }.joined(separator: "/")
    }

    /// `20261126T042219Z` and `20261126` for `seconds` since 1970.
    static func timestamps(_ seconds: Int64) -> (String, String) {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let n = strftime(&buffer, buffer.count, "%Y%m%dT%H%M%SZ", &parts)
        let stamp = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (stamp, String(stamp.prefix(8)))
    }
}
