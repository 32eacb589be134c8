#if canImport(Glibc)
import Glibc
#endif

/// Collects text and writes it to stdout or stderr in one go.
struct Output {
    private(set) var text = ""

    mutating func line(_ s: String = "") {
        text += s
        text += "\n"
    }

    func flush(to descriptor: Int32 = STDOUT_FILENO) {
        Self.write(text, to: descriptor)
    }

    static func error(_ message: String) {
        write(message.hasSuffix("\n") ? message : message + "\n", to: STDERR_FILENO)
    }

    /// Writes all of `text` to a file descriptor; a closed pipe simply ends the output.
    static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { raw in
            var done = 0
            while done < raw.count {
                let n = Glibc.write(descriptor, raw.baseAddress! + done, raw.count - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                done += n
            }
        }
    }
}
