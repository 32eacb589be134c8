#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import MapbookSupport

/// Collects text and writes it to stdout or stderr in one go.
struct Output {
    private(set) var text = ""

    mutating func line(_ s: String = "") {
        text += s
        text += "\n"
    }

    /// `value` as JSON text, as the writer lays it out, without its last newline.
    mutating func json(_ value: JSONValue) {
        line(JSONWriter.string(value).trimmingTrailingNewline())
    }

    /// `value` as JSON when `json` is asked for, else `lines`: what a command prints both ways.
    mutating func report(json: Bool, _ value: @autoclosure () -> JSONValue, lines: @autoclosure () -> [String]) {
        if json {
            self.json(value())
        } else {
            for s in lines() { line(s) }
        }
    }

    func flush(to descriptor: Int32 = STDOUT_FILENO) {
        Self.write(text, to: descriptor)
    }

    /// An option's size in bytes ("512M", "2G"), at least a megabyte.
    static func byteCount(_ text: String) throws -> Int {
        guard let bytes = Format.parseBytes(text), bytes >= 1 << 20 else { throw ValidationError("'\(text)' is not a size of at least 1M (512M, 2G)") }
        return bytes
    }

    static func error(_ message: String) {
        write(message.hasSuffix("\n") ? message : message + "\n", to: STDERR_FILENO)
    }

    /// Writes all of `text` to a file descriptor; a closed pipe simply ends the output.
    static func write(_ text: String, to descriptor: Int32) {
        FileSystem.writeAll(text, to: descriptor)
    }
}
