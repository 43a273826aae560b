fn main() -> std::process::ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // Started to become a long-lived child of promptexec: no command line reaches this.
    if let Some(code) = promptexec::exec::tether::enter(&args) {
        return code;
    }
    promptexec::run(args)
}
