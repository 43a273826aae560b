//! The whole CLI driven in process through [`super::dispatch::run_with`], with
//! buffers for stdout and stderr.

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

use super::dispatch::run_with;
use crate::cli::{Console, Exit};

/// A writer whose bytes can be read back after the console that owned it is gone.
#[derive(Clone, Default)]
struct Buffer(Rc<RefCell<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Buffer {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.borrow()).into_owned()
    }
}

struct Ran {
    exit: Exit,
    stdout: String,
    stderr: String,
}

fn promptexec(args: &[&str]) -> Ran {
    let (out, err) = (Buffer::default(), Buffer::default());
    let mut console = Console::new(Box::new(out.clone()), Box::new(err.clone()));
    let exit = run_with(
        std::iter::once("promptexec").chain(args.iter().copied()),
        &mut console,
    );
    Ran {
        exit,
        stdout: out.text(),
        stderr: err.text(),
    }
}

fn fixture(path: &str) -> String {
    format!("{}/tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_render_writes_only_the_text_to_the_console() {
    let greeter = fixture("packs/greeter.json");
    let ran = promptexec(&["prompt", "render", "--pack", &greeter, "--var", "name=Ada"]);
    assert_eq!(ran.exit, Exit::Success, "{}", ran.stderr);
    assert_eq!(
        ran.stdout,
        "Greet Ada in English.\nUse {{braces}} literally."
    );
    assert_eq!(ran.stderr, "");
}

#[test]
fn a_missing_variable_is_bad_input_reported_on_the_console() {
    let greeter = fixture("packs/greeter.json");
    let ran = promptexec(&["prompt", "render", "--pack", &greeter]);
    assert_eq!(ran.exit, Exit::BadInput);
    assert_eq!(ran.stdout, "");
    assert!(ran.stderr.contains("name"), "{}", ran.stderr);
}

#[test]
fn a_var_without_equals_is_a_usage_error_that_shows_it() {
    let ran = promptexec(&["prompt", "render", "--var", "oops"]);
    assert_eq!(ran.exit, Exit::BadInput);
    assert!(
        ran.stderr.contains("expected KEY=VALUE, found `oops`"),
        "{}",
        ran.stderr
    );
}

#[test]
fn the_version_goes_to_stdout_with_success() {
    let ran = promptexec(&["--version"]);
    assert_eq!(ran.exit, Exit::Success);
    assert_eq!(
        ran.stdout,
        format!("promptexec {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn a_built_in_eval_prints_its_result_and_exits_by_its_verdict() {
    let params = r#"{"patterns": ["hello", "WORLD"]}"#;
    let passed = promptexec(&[
        "eval",
        "contains",
        "--content",
        "Hello World",
        "--params",
        params,
    ]);
    assert_eq!(passed.exit, Exit::Success, "{}", passed.stderr);
    let result: serde_json::Value =
        serde_json::from_str(&passed.stdout).expect("the result is one JSON document");
    assert_eq!(result["eval_id"], "contains");

    let failed = promptexec(&[
        "eval",
        "contains",
        "--content",
        "Hello there",
        "--params",
        params,
    ]);
    assert_eq!(failed.exit, Exit::No, "{}", failed.stderr);
}

#[test]
fn validate_of_a_clean_pack_says_ok_on_stderr() {
    let greeter = fixture("packs/greeter.json");
    let ran = promptexec(&["validate", "--pack", &greeter]);
    assert_eq!(ran.exit, Exit::Success, "{}", ran.stderr);
    assert!(ran.stderr.starts_with("ok: "), "{}", ran.stderr);
    assert_eq!(ran.stdout, "");
}
