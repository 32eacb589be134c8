import CQREncode

/// A QR code drawn with half-block characters, for a phone's camera to open the address a
/// server prints: two rows of modules per line of text, with the quiet zone the standard
/// asks for (four modules), dark modules as the terminal's background colour on white.
public enum TerminalQRCode {
    /// The lines of the code for `text`; nil when libqrencode cannot encode it.
    public static func lines(_ text: String) -> [String]? {
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let quiet = 4
        let size = width + 2 * quiet
        func dark(_ x: Int, _ y: Int) -> Bool {
            let mx = x - quiet, my = y - quiet
            guard mx >= 0, my >= 0, mx < width, my < width else { return false }
            return code.pointee.data[my * width + mx] & 1 == 1
        }
        var lines: [String] = []
        for y in stride(from: 0, to: size, by: 2) {
            // White background, black foreground: the upper module is the foreground.
            var line = "\u{1B}[47;30m"
            for x in 0..<size {
                switch (dark(x, y), dark(x, y + 1)) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            lines.append(line + "\u{1B}[0m")
        }
        return lines
    }
}
