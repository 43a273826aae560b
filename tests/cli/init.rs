//! `promptexec init [DIR]`: a fresh project passes `run` and `test` as written, and
//! init never writes over a file.

use crate::util::promptexec;

/// Every file init writes, relative to the project folder.
const WRITTEN: &[&str] = &[
    "runtimeconfig.yaml",
    "greeter.pack.json",
    "mock-responses.yaml",
    "tools/greet.py",
    "hooks/no_secrets.py",
    "scenarios/greet-ada.scenario.yaml",
    "greeter.cases.yaml",
    ".github/workflows/promptexec.yml",
    "README.md",
];

#[test]
fn a_new_project_passes_run_and_test_with_no_other_argument() {
    let dir = tempfile::tempdir().expect("temp dir");
    let init = promptexec().in_dir(dir.path()).args(["init", "demo"]).run();
    init.expect_code(0)
        .stderr_has("wrote demo/runtimeconfig.yaml")
        .stderr_has("wrote demo/.github/workflows/promptexec.yml")
        .stderr_has("  cd demo\n  promptexec run greeter.pack.json\n  promptexec test");
    let project = dir.path().join("demo");
    for file in WRITTEN {
        assert!(project.join(file).is_file(), "init writes {file}");
    }

    // The config is found as ./runtimeconfig.yaml; the scenarios beside the pack play.
    promptexec()
        .in_dir(&project)
        .args(["run", "greeter.pack.json"])
        .run()
        .expect_code(0)
        .stderr_has("1 passed");
    // With no path, the case files under the current folder run.
    promptexec()
        .in_dir(&project)
        .arg("test")
        .run()
        .expect_code(0)
        .stderr_has("4 passed, 0 failed");
}

#[test]
fn init_writes_into_the_current_folder_by_default() {
    let dir = tempfile::tempdir().expect("temp dir");
    promptexec()
        .in_dir(dir.path())
        .arg("init")
        .run()
        .expect_code(0)
        .stderr_has("wrote runtimeconfig.yaml")
        .stderr_lacks("cd ");
    assert!(dir.path().join("greeter.pack.json").is_file());
}

#[test]
fn init_refuses_before_writing_anything_when_a_file_exists() {
    let dir = tempfile::tempdir().expect("temp dir");
    let project = dir.path().join("demo");
    std::fs::create_dir_all(project.join("tools")).expect("a project folder");
    std::fs::write(project.join("tools/greet.py"), "mine\n").expect("a file of the user's");
    promptexec()
        .in_dir(dir.path())
        .args(["init", "demo"])
        .run()
        .expect_code(2)
        .stderr_has(
            "demo/tools/greet.py: already exists; init writes over no file, so it wrote nothing",
        );
    assert_eq!(
        std::fs::read_to_string(project.join("tools/greet.py")).expect("still there"),
        "mine\n",
        "the user's file is untouched"
    );
    assert!(
        !project.join("runtimeconfig.yaml").exists(),
        "nothing is written when init refuses"
    );
}

#[test]
fn quiet_init_prints_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    promptexec()
        .in_dir(dir.path())
        .args(["-q", "init", "demo"])
        .run()
        .expect_code(0)
        .stdout_empty()
        .stderr_lacks("wrote");
}

#[test]
fn under_quiet_every_command_of_a_passing_project_is_silent_on_stderr() {
    let dir = tempfile::tempdir().expect("temp dir");
    promptexec()
        .in_dir(dir.path())
        .arg("init")
        .run()
        .expect_code(0);
    let commands: &[&[&str]] = &[
        &["run", "greeter.pack.json"],
        &["test"],
        &["list", "greeter.pack.json"],
        &["tools", "greeter.pack.json"],
        &["validate", "greeter.pack.json", "scenarios"],
        &["check", "greeter.pack.json", "--cases", "3"],
        &[
            "invoke-tool",
            "greet",
            "greeter.pack.json",
            "--arg",
            "name=Ada",
        ],
        &["hook", "test", "no_secrets"],
        &["prompt", "render", "greeter.pack.json"],
    ];
    for args in commands {
        let out = promptexec().in_dir(dir.path()).arg("-q").args(*args).run();
        out.expect_code(0);
        assert_eq!(
            out.stderr,
            "",
            "promptexec -q {} wrote on stderr",
            args.join(" ")
        );
    }
}

#[test]
fn the_pack_is_an_argument_everywhere_and_pack_still_works() {
    let dir = tempfile::tempdir().expect("temp dir");
    promptexec()
        .in_dir(dir.path())
        .arg("init")
        .run()
        .expect_code(0);
    let in_project = || promptexec().in_dir(dir.path());
    let positional = in_project().args(["tools", "greeter.pack.json"]).run();
    positional.expect_code(0).stdout_has("greet");
    let flag = in_project()
        .args(["tools", "--pack", "greeter.pack.json"])
        .run();
    assert_eq!(
        positional.stdout, flag.stdout,
        "PACK and --pack say the same"
    );

    // The tool's name and the pack, either way round.
    for args in [
        ["invoke-tool", "greet", "greeter.pack.json"],
        ["invoke-tool", "greeter.pack.json", "greet"],
    ] {
        in_project()
            .args(args)
            .args(["--arg", "name=Ada"])
            .run()
            .expect_code(0)
            .stdout_has("Hello, Ada!");
    }
    // Schema checks come from the pack given as an argument.
    in_project()
        .args(["invoke-tool", "greet", "greeter.pack.json"])
        .run()
        .expect_code(2)
        .stderr_has("name");

    in_project()
        .args(["invoke-tool", "greeter.pack.json"])
        .run()
        .expect_code(2)
        .stderr_has(
            "`greeter.pack.json` is a pack file; did you mean `TOOL greeter.pack.json` (a tool name, then the pack)?",
        );
    in_project()
        .args(["tools", "greeter.pack.json", "--pack", "greeter.pack.json"])
        .run()
        .expect_code(2)
        .stderr_has("are both packs; give one");
    in_project()
        .args(["eval", "greeter.pack.json"])
        .run()
        .expect_code(2)
        .stderr_has("give --transcript FILE");
}
