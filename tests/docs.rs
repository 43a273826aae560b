//! The shell examples of README.md and of the guide (`docs/src`) run as written.
//!
//! Every ```` ```console ```` block of those pages is a list of `$ ` commands, each followed
//! by what it prints (stderr and stdout together, as a terminal shows them) and, after
//! `? N`, its exit code when that is not 0. trycmd runs them from the repository's root
//! against the binary under test; `...` on a line of its own stands for any lines and
//! `[..]` for any part of a line, where times and sizes vary. Blocks in other languages
//! (`sh`, `yaml`, `text`, …) are not run. Files the examples write go to `docs/examples/out/`,
//! which git ignores.

#[test]
fn the_readme_and_guide_examples_print_what_the_pages_say() {
    // Libraries, bundles and reports the examples write start afresh on every run.
    let scratch = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/examples/out");
    for entry in std::fs::read_dir(&scratch).expect("docs/examples/out") {
        let path = entry.expect("an entry of docs/examples/out").path();
        if path.file_name() == Some(std::ffi::OsStr::new(".gitkeep")) {
            continue;
        }
        let removed = if path.is_dir() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        removed.unwrap_or_else(|error| panic!("cannot remove {}: {error}", path.display()));
    }
    trycmd::TestCases::new()
        .register_bin(
            "promptexec",
            std::path::Path::new(env!("CARGO_BIN_EXE_promptexec")),
        )
        .env("NO_COLOR", "1")
        .case("README.md")
        .case("docs/src/*.md")
        .case("docs/src/*/*.md");
}
