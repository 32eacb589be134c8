/// `data:` URIs (RFC 2397) with base64 payloads, as `.info` and map items hold thumbnails.
public enum DataURI {
    /// `data:<mime>;base64,<payload>`.
    public static func encode(_ bytes: [UInt8], mimeType: String) -> String {
        "data:\(mimeType);base64," + Base64.encode(bytes)
    }

    /// The payload of a base64 `data:` URI, or nil when `text` is not one.
    public static func decode(_ text: String) -> [UInt8]? {
        guard text.hasPrefix("data:"), let comma = text.firstIndex(of: ",") else { return nil }
        let header = text[text.index(text.startIndex, offsetBy: 5)..<comma]
        guard header.hasSuffix(";base64") else { return nil }
        return Base64.decode(String(text[text.index(after: comma)...]))
    }
}

/// Standard base64 (RFC 4648 section 4) with padding.
public enum Base64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    public static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= bytes.count {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out += [alphabet[Int(v >> 18 & 63)], alphabet[Int(v >> 12 & 63)], alphabet[Int(v >> 6 & 63)], alphabet[Int(v & 63)]]
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let v = UInt32(bytes[i]) << 16
            out += [alphabet[Int(v >> 18 & 63)], alphabet[Int(v >> 12 & 63)], UInt8(ascii: "="), UInt8(ascii: "=")]
        } else if rest == 2 {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out += [alphabet[Int(v >> 18 & 63)], alphabet[Int(v >> 12 & 63)], alphabet[Int(v >> 6 & 63)], UInt8(ascii: "=")]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes, ignoring whitespace; nil on any other character or bad padding.
    public static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        values.reserveCapacity(text.utf8.count)
        var padding = 0
        for c in text.utf8 {
            if c == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { continue }
            guard padding == 0 else { return nil }
            let v = reverse[Int(c)]
            guard v != 0xFF else { return nil }
            values.append(v)
        }
        guard padding <= 2, (values.count + padding) % 4 == 0 || padding == 0 else { return nil }
        guard values.count % 4 != 1 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(values.count * 3 / 4)
        var i = 0
        while i + 4 <= values.count {
            let v = UInt32(values[i]) << 18 | UInt32(values[i + 1]) << 12 | UInt32(values[i + 2]) << 6 | UInt32(values[i + 3])
            out += [UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
            i += 4
        }
        let rest = values.count - i
        if rest == 2 {
            let v = UInt32(values[i]) << 18 | UInt32(values[i + 1]) << 12
            out.append(UInt8(v >> 16 & 0xFF))
        } else if rest == 3 {
            let v = UInt32(values[i]) << 18 | UInt32(values[i + 1]) << 12 | UInt32(values[i + 2]) << 6
            out += [UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF)]
        }
        return out
    }
}

/// The kind of a raster image, told from its first bytes.
public enum ImageKind: String, Sendable {
    case png
    case jpeg

    public init?(_ bytes: [UInt8]) {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else {
            return nil
        }
    }

    public var mimeType: String { self == .png ? "image/png" : "image/jpeg" }
}
