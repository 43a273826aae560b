//! What `/proc` says about a process: its state, parent and group, its environment,
//! its command line, and promptexec's own children. Parsing is kept apart from
//! reading so that it can be tested on plain text.

use std::path::Path;

/// The fields of `/proc/PID/stat` the sweeps need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stat {
    pub pid: i32,
    /// One letter: `R`, `S`, `D`, `Z` (exited, not yet reaped), `T`, `X`, ...
    pub state: char,
    pub ppid: i32,
    pub pgid: i32,
    /// The kernel's `PF_*` flags of the process.
    pub flags: u64,
}

/// `PF_KTHREAD`: the process is a kernel thread, which has no environment.
const KERNEL_THREAD: u64 = 0x0020_0000;

impl Stat {
    /// Exited and waiting to be reaped (or being reaped): no longer running.
    pub(super) fn is_dead(&self) -> bool {
        matches!(self.state, 'Z' | 'X')
    }

    pub(super) fn is_kernel_thread(&self) -> bool {
        self.flags & KERNEL_THREAD != 0
    }
}

/// Reads the text of `/proc/PID/stat`. The command name sits in parentheses and may
/// itself hold spaces and parentheses, so the fields are counted from the last `)`.
pub(super) fn parse_stat(text: &str) -> Option<Stat> {
    let (head, rest) = text.rsplit_once(')')?;
    let pid = head.split_once(" (")?.0.trim().parse().ok()?;
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgid = fields.next()?.parse().ok()?;
    // session, tty_nr and tpgid come before the flags.
    let flags = fields.nth(3)?.parse().ok()?;
    Some(Stat {
        pid,
        state,
        ppid,
        pgid,
        flags,
    })
}

/// Reads the text of `/proc/PID/task/TID/children`: pids separated by spaces.
pub(super) fn parse_children(text: &str) -> Vec<i32> {
    text.split_ascii_whitespace()
        .filter_map(|pid| pid.parse().ok())
        .collect()
}

/// Whether the NUL-separated `NAME=VALUE` entries of `/proc/PID/environ` hold
/// exactly `name=value` (not a longer value that starts the same).
pub(super) fn environ_has(environ: &[u8], name: &str, value: &str) -> bool {
    let wanted_len = name.len() + 1 + value.len();
    environ.split(|b| *b == 0).any(|entry| {
        entry.len() == wanted_len
            && entry.starts_with(name.as_bytes())
            && entry[name.len()] == b'='
            && entry.ends_with(value.as_bytes())
    })
}

/// The text of `/proc/PID/cmdline`: its NUL-separated arguments joined by spaces.
pub(super) fn command_line(cmdline: &[u8]) -> String {
    String::from_utf8_lossy(cmdline)
        .replace('\0', " ")
        .trim()
        .to_string()
}

/// `/proc/PID/stat` of a process, if it still exists.
pub(super) fn stat(pid: i32) -> Option<Stat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// What the environment of a process says about one `NAME=VALUE` entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mark {
    Carries,
    /// It lacks the entry, or it is gone, or it is another user's.
    Lacks,
    /// Its environment reads as empty: it is in the middle of an `exec` (its new
    /// memory is in place, its environment not yet), or it was started without one.
    /// Looking again a moment later tells the two apart.
    Unread,
}

/// Whether process `pid` runs with `name=value` in its environment.
pub(super) fn mark(pid: i32, name: &str, value: &str) -> Mark {
    match std::fs::read(format!("/proc/{pid}/environ")) {
        Ok(environ) if environ.is_empty() => Mark::Unread,
        Ok(environ) if environ_has(&environ, name, value) => Mark::Carries,
        _ => Mark::Lacks,
    }
}

/// The command line of process `pid`; empty once it is gone.
pub(super) fn command_line_of(pid: i32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|bytes| command_line(&bytes))
        .unwrap_or_default()
}

/// promptexec's children. Orphans reparented to promptexec attach to its main thread,
/// whose `children` file lists them cheaply; a kernel without that file is scanned.
pub(super) fn own_children() -> Vec<i32> {
    let me = std::process::id() as i32;
    match std::fs::read_to_string(format!("/proc/self/task/{me}/children")) {
        Ok(text) => parse_children(&text),
        Err(_) => all_processes()
            .filter_map(stat)
            .filter(|s| s.ppid == me)
            .map(|s| s.pid)
            .collect(),
    }
}

/// Every process `/proc` shows.
pub(super) fn all_processes() -> impl Iterator<Item = i32> {
    std::fs::read_dir(Path::new("/proc"))
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_from_the_last_parenthesis() {
        let text = "4242 (evil) name (x) S 17 4242 4242 0 -1 4194560 97 0 0 0\n";
        assert_eq!(
            parse_stat(text),
            Some(Stat {
                pid: 4242,
                state: 'S',
                ppid: 17,
                pgid: 4242,
                flags: 4194560,
            })
        );
        let zombie = parse_stat("7 (sleep) Z 1 5 5 0 -1 4194560").expect("parses");
        assert!(zombie.is_dead());
        assert!(!parse_stat(text).expect("parses").is_dead());
        assert!(!parse_stat(text).expect("parses").is_kernel_thread());
        let kthread = parse_stat("2 (kthreadd) S 0 0 0 0 -1 2129984 0").expect("parses");
        assert!(kthread.is_kernel_thread());
    }

    #[test]
    fn truncated_or_garbled_stat_is_none() {
        assert_eq!(parse_stat(""), None);
        assert_eq!(parse_stat("12 (sh"), None);
        assert_eq!(parse_stat("12 (sh) S"), None);
        assert_eq!(parse_stat("x (sh) S 1 2"), None);
        assert_eq!(parse_stat("12 (sh) S one 2"), None);
        assert_eq!(parse_stat("12 (sh) S 1 2 2 0 -1"), None);
    }

    #[test]
    fn children_are_the_numbers_of_the_file() {
        assert_eq!(parse_children("101 205 3070 \n"), [101, 205, 3070]);
        assert_eq!(parse_children(""), Vec::<i32>::new());
    }

    #[test]
    fn the_environment_must_hold_the_exact_entry() {
        let environ = b"PATH=/usr/bin\0PROMPTEXEC_SPAWN_ID=900.12\0HOME=/h\0";
        assert!(environ_has(environ, "PROMPTEXEC_SPAWN_ID", "900.12"));
        assert!(!environ_has(environ, "PROMPTEXEC_SPAWN_ID", "900.1"));
        assert!(!environ_has(environ, "PROMPTEXEC_SPAWN_ID", "900.123"));
        assert!(!environ_has(environ, "SPAWN_ID", "900.12"));
        assert!(!environ_has(b"", "PROMPTEXEC_SPAWN_ID", "900.12"));
        // A value that merely contains the entry is not it.
        assert!(!environ_has(
            b"X=PROMPTEXEC_SPAWN_ID=900.12\0",
            "PROMPTEXEC_SPAWN_ID",
            "900.12"
        ));
    }

    #[test]
    fn a_command_line_reads_with_spaces() {
        assert_eq!(command_line(b"sleep\x00300\x00"), "sleep 300");
        assert_eq!(command_line(b""), "");
    }

    #[test]
    fn this_process_reads_as_itself() {
        let me = std::process::id() as i32;
        let own = stat(me).expect("our own stat");
        assert_eq!(own.pid, me);
        assert!(!own.is_dead());
        assert!(all_processes().any(|pid| pid == me));
        assert!(!command_line_of(me).is_empty());
        let path = std::env::var("PATH").expect("tests run with a PATH");
        assert_eq!(mark(me, "PATH", &path), Mark::Carries);
        assert_eq!(mark(me, "PATH", "/nowhere"), Mark::Lacks);
        assert_eq!(mark(i32::MAX, "PATH", "/nowhere"), Mark::Lacks);
    }

    #[test]
    fn a_process_without_an_environment_is_unread_not_lacking() {
        let mut bare = std::process::Command::new("env")
            .args(["-i", "sleep", "30"])
            .spawn()
            .expect("env -i sleep starts");
        let pid = bare.id() as i32;
        // `env` itself runs with our environment until it execs `sleep`.
        let mut seen = mark(pid, "PATH", "/nowhere");
        for _ in 0..500 {
            if command_line_of(pid) == "sleep 30" {
                seen = mark(pid, "PATH", "/nowhere");
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let _ = bare.kill();
        let _ = bare.wait();
        assert_eq!(seen, Mark::Unread);
    }
}
