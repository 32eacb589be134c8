import Mustache

/// The escaping of every `{{value}}` in the portal's pages: the five characters
/// swift-mustache's own `HTML` content type escapes, to the same entities, without its lookup
/// of every character in a dictionary (a tenth of a list page's time under load, issue 34).
/// Text with none of them, most of it, is returned as it is. The templates name it with the
/// `CONTENT_TYPE` pragma that `PortalPages` puts first in each.
struct PageEscaping: MustacheContentType {
    static let name = "MAPBOOK_HTML"

    func escapeText(_ text: String) -> String {
        let bytes = text.utf8
        guard bytes.contains(where: Self.needsEscaping) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 32)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "<"): out += "&lt;".utf8
            case UInt8(ascii: ">"): out += "&gt;".utf8
            case UInt8(ascii: "&"): out += "&amp;".utf8
            case UInt8(ascii: "\""): out += "&quot;".utf8
            case UInt8(ascii: "'"): out += "&#39;".utf8
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func needsEscaping(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }
}
