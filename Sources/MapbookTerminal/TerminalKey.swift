/// A key or mouse event read from a terminal in raw mode.
enum TerminalKey: Equatable {
    case character(Character)
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, escape, backspace, tab
    /// Ctrl with a letter (Ctrl-C is `control("c")`).
    case control(Character)
    /// A mouse report (SGR, 1006): button 0 left, 1 middle, 2 right, 64/65 wheel up/down;
    /// `motion` while dragging; `released` on letting go. Cells from 1.
    case mouse(button: Int, column: Int, row: Int, motion: Bool, released: Bool)

    /// The keys in `bytes`, in order: UTF-8 characters, control keys, the CSI and SS3
    /// sequences of arrows and paging keys, and SGR mouse reports. Unknown sequences are
    /// skipped whole.
    static func decode(_ bytes: [UInt8]) -> [TerminalKey] {
        var keys: [TerminalKey] = []
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            switch b {
            case 0x1B:
                // A lone escape, or the start of a sequence.
                guard i + 1 < bytes.count else { keys.append(.escape); i += 1; continue }
                let next = bytes[i + 1]
                if next == UInt8(ascii: "[") || next == UInt8(ascii: "O") {
                    // Parameters, then a final byte in 0x40...0x7E.
                    var j = i + 2
                    while j < bytes.count, !(0x40...0x7E).contains(bytes[j]) { j += 1 }
                    guard j < bytes.count else { i = bytes.count; continue }
                    let parameters = String(decoding: bytes[(i + 2)..<j], as: UTF8.self)
                    if let key = sequence(parameters, final: bytes[j]) { keys.append(key) }
                    i = j + 1
                } else {
                    // Alt with a key: read as the key.
                    keys.append(.escape)
                    i += 1
                }
            case 0x0D, 0x0A: keys.append(.enter); i += 1
            case 0x09: keys.append(.tab); i += 1
            case 0x7F, 0x08: keys.append(.backspace); i += 1
            case 0x01...0x1A: keys.append(.control(Character(UnicodeScalar(b + 0x60)))); i += 1
            default:
                // A UTF-8 character: its length from the lead byte.
                let length = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
                let end = min(i + length, bytes.count)
                if let text = String(validating: bytes[i..<end], as: UTF8.self), let c = text.first { keys.append(.character(c)) }
                i = end
            }
        }
        return keys
    }

    /// A CSI or SS3 sequence's key.
    private static func sequence(_ parameters: String, final: UInt8) -> TerminalKey? {
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "~"):
            switch parameters {
            case "5": return .pageUp
            case "6": return .pageDown
            case "1", "7": return .home
            case "4", "8": return .end
            default: return nil
            }
        case UInt8(ascii: "M"), UInt8(ascii: "m"):
            // SGR mouse: "<button;column;row", M pressed or moved, m released.
            guard parameters.hasPrefix("<") else { return nil }
            let numbers = parameters.dropFirst().split(separator: ";").compactMap { Int($0) }
            guard numbers.count == 3 else { return nil }
            let motion = numbers[0] & 32 != 0
            return .mouse(button: numbers[0] & ~32, column: numbers[1], row: numbers[2], motion: motion, released: final == UInt8(ascii: "m"))
        default: return nil
        }
    }
}
