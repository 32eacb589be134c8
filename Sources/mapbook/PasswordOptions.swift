import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

/// How a command that takes a password gets it: the first line of standard input with
/// `--password-stdin`, else asked for on the terminal with echo off.
struct PasswordOptions: ParsableArguments {
    @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input.")
    var passwordStdin = false

    /// `user`'s password (at `portal`, when given, in the prompt). Prints the error and throws
    /// exit 1 when standard input holds none, 64 when there is no terminal to ask on.
    func password(for user: String, at portal: String? = nil) throws -> String {
        if passwordStdin {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                Output.error("error: no password on standard input")
                throw ExitCode.failure
            }
            return line
        }
        guard isatty(STDIN_FILENO) == 1, let typed = Self.ask(for: user, at: portal) else {
            Output.error("error: give the password on standard input with --password-stdin")
            throw ExitCode(64)
        }
        return typed
    }

    /// The password typed on the terminal with echo off; nil when none was typed.
    ///
    /// The corresponding C function is `getpass`.
    static func ask(for user: String, at portal: String? = nil) -> String? {
        guard let typed = getpass("Password for \(user)\(portal.map { " at \($0)" } ?? ""): ") else { return nil }
        let password = String(cString: typed)
        return password.isEmpty ? nil : password
    }
}
