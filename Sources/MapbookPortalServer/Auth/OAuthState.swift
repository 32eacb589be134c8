import Crypto
import MapbookPackage
import MapbookPortal

/// The state of an OAuth 2 sign-in between the authorize page and the sign-in form, carried
/// by the client as `oauth_state`: the request's parameters, signed with the portal's secret
/// (HMAC-SHA256) and valid for ten minutes, so the server keeps nothing per sign-in.
struct OAuthState: Equatable {
    var clientId: String
    /// `token` (implicit) or `code`.
    var responseType: String
    var redirectURI: String
    var state: String?
    /// Requested token lifetime in minutes.
    var expiration: Int64?
    var codeChallenge: String?
    var expires: Int64

    static let lifetimeMillis: Int64 = 10 * 60 * 1000

    func encode(secret: [UInt8]) -> String {
        var o: JSONObject = ["c": .string(clientId), "r": .string(responseType), "u": .string(redirectURI), "x": .integer(expires)]
        if let state { o["s"] = .string(state) }
        if let expiration { o["e"] = .integer(expiration) }
        if let codeChallenge { o["p"] = .string(codeChallenge) }
        let payload = Base64URL.encode(JSONWriter.bytes(.object(o), style: .compact))
        return payload + "." + Base64URL.encode(Self.mac(payload, secret))
    }

    /// The state if it is genuine and not expired.
    static func decode(_ text: String, secret: [UInt8], now: Int64) -> OAuthState? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, text.utf8.count < 4096, let mac = Base64URL.decode(String(parts[1])),
            mac == Self.mac(String(parts[0]), secret), let bytes = Base64URL.decode(String(parts[0])),
            case .object(let o)? = try? JSONParser.parse(bytes), let clientId = o["c"]?.stringValue,
            let responseType = o["r"]?.stringValue, let redirect = o["u"]?.stringValue, let expires = o["x"]?.int64Value, expires > now
        else { return nil }
        return OAuthState(
            clientId: clientId, responseType: responseType, redirectURI: redirect, state: o["s"]?.stringValue, expiration: o["e"]?.int64Value,
            codeChallenge: o["p"]?.stringValue, expires: expires)
    }

    static func mac(_ payload: String, _ secret: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array(payload.utf8), using: SymmetricKey(data: secret)))
    }
}

/// URL-safe base64 without padding (RFC 4648 section 5), as PKCE and tokens use it.
enum Base64URL {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            var v = UInt32(bytes[i]) << 16
            if n > 1 { v |= UInt32(bytes[i + 1]) << 8 }
            if n > 2 { v |= UInt32(bytes[i + 2]) }
            for k in 0..<(n + 1) { out.append(alphabet[Int((v >> UInt32(18 - 6 * k)) & 63)]) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        for c in text.utf8 {
            guard let v = alphabet.firstIndex(of: c) else { return nil }
            values.append(UInt8(v))
        }
        guard values.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < values.count {
            let n = min(4, values.count - i)
            var v: UInt32 = 0
            for k in 0..<4 { v = v << 6 | (k < n ? UInt32(values[i + k]) : 0) }
            for k in 0..<(n - 1) { out.append(UInt8((v >> UInt32(16 - 8 * k)) & 0xFF)) }
            i += 4
        }
        return out
    }
}
