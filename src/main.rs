fn main() -> std::process::ExitCode {
    promptexec::cli::main()
}
