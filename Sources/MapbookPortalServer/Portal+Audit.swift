#if canImport(Glibc)
import Glibc
#endif

/// Who does an administrator's action, as the audit log names them: a signed-in user and the
/// address the request came from (the web pages and the API alike), or the account that ran
/// a `mapbook portal` command on the portal's machine.
public struct AuditActor: Sendable {
    public var username: String
    public var address: String?

    public init(_ user: UserRecord, address: String?) {
        self.username = user.username
        self.address = address
    }

    init(username: String, address: String?) {
        self.username = username
        self.address = address
    }

    /// The operating system's account running this command, on this machine.
    ///
    /// The corresponding C functions are `getpwuid` and `gethostname`.
    public static func commandLine() -> AuditActor {
        let account = getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "uid \(geteuid())"
        var host = [CChar](repeating: 0, count: 256)
        let machine = gethostname(&host, host.count - 1) == 0 ? String(cString: host) : "this machine"
        return AuditActor(username: "\(account) (command line)", address: machine)
    }
}

extension Portal {
    /// Keeps an administrator's action in the audit log (issue 34). Unlike the reports, an
    /// action that cannot be logged fails: an unrecorded change is what the log is against.
    /// The portal's functions that make such changes (users, groups, sharing) call it
    /// themselves, so the API, the pages and the commands are all logged.
    func audit(_ actor: AuditActor, _ action: String, _ target: String, _ detail: String = "") async throws {
        try await store.recordAudit(AuditEntry(at: TokenService.now(), username: actor.username, action: action, target: target, address: actor.address, detail: detail))
    }
}
