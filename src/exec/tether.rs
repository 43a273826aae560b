//! Long-lived children die with promptexec, even when it is killed with SIGKILL and
//! no code of its own runs. Such a child is started through promptexec's own binary
//! under a program name no command line can give ([`ARGV0`]): that first step asks
//! the kernel for SIGKILL when its parent dies (`PR_SET_PDEATHSIG`), checks that the
//! parent it was started by is still there, then replaces itself with the real
//! program. The pid, the process group, the environment, the working directory and
//! the pipes stay those of the child, and the death signal survives the `exec`.
//!
//! One-shot calls do not go this way: they end with their call, and keep the fast
//! spawn path.

use std::ffi::{CString, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

/// The program name promptexec's binary is started under to tether a child.
pub const ARGV0: &str = "promptexec-tethered-child";
/// The binary to start: promptexec's own, even if its file was replaced since.
pub const SELF_EXE: &str = "/proc/self/exe";
/// Exit status when the program could not replace the tethered start.
const CANNOT_EXEC: u8 = 127;

/// The arguments after [`ARGV0`] that start `program` with `args` for the parent
/// whose pid is `parent`.
pub fn arguments(parent: u32, program: &Path, args: &[String]) -> Vec<OsString> {
    let mut all = vec![
        OsString::from(parent.to_string()),
        OsString::from("--"),
        program.as_os_str().to_owned(),
    ];
    all.extend(args.iter().map(OsString::from));
    all
}

/// Set when this process runs promptexec's own binary, which can start tethered
/// children. A program that uses the library without it (a test binary) starts
/// long-lived children directly.
static AVAILABLE: AtomicBool = AtomicBool::new(false);

/// Called first by promptexec's `main`. When promptexec was started as a tethered
/// child, becomes the program and never returns unless that fails; otherwise
/// records that children can be tethered and returns `None`, and promptexec runs as
/// usual.
pub fn enter(args: &[OsString]) -> Option<ExitCode> {
    if is_tethered_start(args) {
        return Some(tethered(&args[1..]));
    }
    AVAILABLE.store(true, Ordering::Release);
    None
}

/// Whether `args` (the program name first) are those of a tethered start.
fn is_tethered_start(args: &[OsString]) -> bool {
    args.first()
        .is_some_and(|argv0| argv0.as_bytes() == ARGV0.as_bytes())
}

/// Whether long-lived children are started tethered.
pub fn available() -> bool {
    cfg!(target_os = "linux") && AVAILABLE.load(Ordering::Acquire)
}

fn tethered(rest: &[OsString]) -> ExitCode {
    let [parent, dashes, program @ ..] = rest else {
        return ExitCode::from(CANNOT_EXEC);
    };
    let Some(parent) = parent.to_str().and_then(|p| p.parse::<i32>().ok()) else {
        return ExitCode::from(CANNOT_EXEC);
    };
    if dashes != "--" || program.is_empty() {
        return ExitCode::from(CANNOT_EXEC);
    }
    #[cfg(target_os = "linux")]
    if let Err(err) = nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL) {
        eprintln!("cannot tie the child's life to promptexec: {err}");
        return ExitCode::from(CANNOT_EXEC);
    }
    // The parent may have died before the death signal was asked for: then nothing
    // would deliver it, and the program must not start.
    if nix::unistd::getppid().as_raw() != parent {
        return ExitCode::from(CANNOT_EXEC);
    }
    let argv: Option<Vec<CString>> = program
        .iter()
        .map(|arg| CString::new(arg.as_bytes()).ok())
        .collect();
    let Some(argv) = argv else {
        eprintln!("cannot start: an argument holds a NUL byte");
        return ExitCode::from(CANNOT_EXEC);
    };
    let err = match nix::unistd::execv(&argv[0], &argv) {
        Ok(never) => match never {},
        Err(err) => err,
    };
    eprintln!(
        "cannot start `{}`: {}",
        Path::new(&program[0]).display(),
        err.desc()
    );
    ExitCode::from(CANNOT_EXEC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_tether_name_is_a_tethered_start() {
        let args = |all: &[&str]| all.iter().map(OsString::from).collect::<Vec<_>>();
        assert!(!is_tethered_start(&args(&["promptexec", "run"])));
        assert!(!is_tethered_start(&args(&[])));
        assert!(is_tethered_start(&args(&[ARGV0, "1", "--", "/bin/true"])));
    }

    #[test]
    fn the_arguments_carry_the_parent_then_the_program() {
        let args = arguments(42, Path::new("/bin/tool"), &["-v".into(), "x y".into()]);
        assert_eq!(
            args,
            ["42", "--", "/bin/tool", "-v", "x y"].map(OsString::from)
        );
    }

    #[test]
    fn malformed_tether_arguments_start_nothing() {
        let with = |rest: &[&str]| {
            let mut all = vec![OsString::from(ARGV0)];
            all.extend(rest.iter().map(OsString::from));
            enter(&all)
        };
        for rest in [
            &[][..],
            &["1"],
            &["x", "--", "/bin/true"],
            &["1", "-", "/bin/true"],
        ] {
            assert_eq!(with(rest), Some(ExitCode::from(CANNOT_EXEC)), "{rest:?}");
        }
    }
}
