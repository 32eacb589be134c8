/// `application/x-www-form-urlencoded`, as the sharing API (client and server) reads query strings and form
/// bodies (the WHATWG URL standard's form encoding, with `%20` for spaces, which every
/// server decodes).
public enum FormEncoding {
    /// `key=value&...` with both sides percent-encoded, in the order given.
    public static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(percentEncode($0.0))=\(percentEncode($0.1))" }.joined(separator: "&")
    }

    /// Percent-encodes every byte but the unreserved characters of RFC 3986.
    public static func percentEncode(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(b >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(b & 0xF)]))
            }
        }
        return out
    }

    /// The fields of a query string or URL-encoded form body, a later field replacing an
    /// earlier one of the same name; a pair whose name is empty or not UTF-8 once decoded is
    /// skipped, and a value that is not UTF-8 is empty.
    public static func decode(_ form: String) -> [String: String] {
        var values: [String: String] = [:]
        for pair in form.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let kv = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = percentDecode(kv[0]), !key.isEmpty else { continue }
            values[key] = kv.count > 1 ? (percentDecode(kv[1]) ?? "") : ""
        }
        return values
    }

    /// Decodes `%XX` and `+` (a space in forms); nil when the result is not UTF-8. A `%` not
    /// followed by two hexadecimal digits stays as it is.
    public static func percentDecode(_ text: some Collection<UInt8>) -> String? {
        let bytes = Array(text)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        func hex(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x41...0x46: return c - 0x41 + 10
            case 0x61...0x66: return c - 0x61 + 10
            default: return nil
            }
        }
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            if c == 0x25, i + 2 < bytes.count, let hi = hex(bytes[i + 1]), let lo = hex(bytes[i + 2]) {
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(c == 0x2B ? 0x20 : c)
                i += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }
}
