fn main() -> std::process::ExitCode {
    promptexec::cli::run(std::env::args_os())
}
