//! Several processes on one library at once, and an import killed midway
//! (reliability rows 22–23).

use std::os::unix::process::ExitStatusExt;
use std::time::{Instant, SystemTime};

use promptexec::library::{KeyPair, make_bundle};
use serde_json::{Value as Json, json};

use super::{Lib, greeting_vars, library_fixture};
use crate::util::{finish, promptexec};

#[test]
fn eight_concurrent_processes_add_rate_and_render_without_losing_a_record() {
    let lib = Lib::new();
    lib.add("greeting.json", "setup");
    const ROUNDS: usize = 4;
    const PROCESSES: usize = 8;
    // Every add is a change (its own description), so each makes a version.
    let greeting: Json = serde_json::from_str(
        &std::fs::read_to_string(crate::util::fixtures().join(library_fixture("greeting.json")))
            .expect("reads the fixture"),
    )
    .expect("JSON");
    let (mut adds, mut scores, mut names) = (0, Vec::new(), Vec::new());

    for round in 0..ROUNDS {
        let mut children = Vec::new();
        for i in 0..PROCESSES {
            let n = round * PROCESSES + i;
            let agent = format!("agent-{n}");
            let name = format!(
                "Caller {}{}",
                char::from(b'A' + (n / 26) as u8),
                char::from(b'a' + (n % 26) as u8)
            );
            let score = (n % 6).to_string();
            let vars = greeting_vars(&name);
            let mut changed = greeting.clone();
            changed["description"] = Json::from(format!("written by {agent}"));
            let template = lib.file(&format!("greeting-{n}.json"));
            std::fs::write(&template, changed.to_string()).expect("writes a template");
            let mut args: Vec<&str> = match i % 4 {
                0 => vec!["prompt", "add", &template],
                // Ratings go to version 1, whichever version is latest meanwhile.
                1 => vec!["prompt", "rate", "greeting", &score, "--version", "1"],
                _ => {
                    let mut render = vec!["prompt", "render", "greeting"];
                    render.extend(vars.iter().map(String::as_str));
                    render
                }
            };
            args.extend(["--agent", &agent, "--library", lib.path()]);
            children.push((i % 4, name.clone(), n, promptexec().args(&args).spawn()));
        }
        for (role, name, n, child) in children {
            let out = finish(child);
            assert!(
                out.code == 0,
                "round {round}, process {n} ({role}): exit {}\n{}",
                out.code,
                out.stderr
            );
            match role {
                0 => adds += 1,
                1 => scores.push((n % 6) as f64),
                _ => {
                    assert_eq!(
                        out.stdout,
                        format!("Greet {name} in a formal tone and confirm account ACC-123.")
                    );
                    names.push((format!("agent-{n}"), name));
                }
            }
        }
    }

    let verified = lib.ok(&["prompt", "audit", "verify"]);
    assert_eq!(
        verified.stdout,
        format!(
            "the audit log holds: {} record(s), none edited or removed\n",
            names.len()
        )
    );
    let records = lib.json(&["prompt", "audit"]);
    let records = records.as_array().expect("records");
    let seqs: Vec<u64> = records
        .iter()
        .map(|r| r["seq"].as_u64().expect("seq"))
        .collect();
    assert_eq!(seqs, (1..=names.len() as u64).collect::<Vec<_>>());
    let mut recorded: Vec<(String, String)> = records
        .iter()
        .map(|r| {
            assert_eq!(r["variables"]["account"], "[redacted]", "{r}");
            (
                r["who"].as_str().expect("who").to_string(),
                r["variables"]["name"].as_str().expect("name").to_string(),
            )
        })
        .collect();
    recorded.sort();
    names.sort();
    assert_eq!(recorded, names);

    let history = lib.json(&["prompt", "history", "greeting"]);
    let versions: Vec<u64> = history
        .as_array()
        .expect("versions")
        .iter()
        .map(|v| v["version"].as_u64().expect("version"))
        .collect();
    assert_eq!(versions, (1..=1 + adds).collect::<Vec<u64>>());
    let shown = lib.json(&["prompt", "show", "greeting", "--version", "1"]);
    assert_eq!(shown["ratings"], scores.len());
    let mean = scores.iter().sum::<f64>() / scores.len() as f64;
    assert!((shown["rating"].as_f64().expect("rating") - mean).abs() < 1e-9);
}

#[test]
fn eight_processes_opening_a_new_library_at_once_all_succeed() {
    // The first use of a library by several agents at once: each round starts on a
    // library that does not exist yet, and every process creates or migrates it. Each
    // process is started from its own thread, all released together, so they overlap.
    for round in 0..100 {
        let lib = Lib::new();
        let start = std::sync::Barrier::new(8);
        std::thread::scope(|scope| {
            let runs: Vec<_> = (0..8)
                .map(|_| {
                    scope.spawn(|| {
                        start.wait();
                        finish(
                            promptexec()
                                .args(&[
                                    "prompt",
                                    "list",
                                    "--format",
                                    "json",
                                    "--library",
                                    lib.path(),
                                ])
                                .spawn(),
                        )
                    })
                })
                .collect();
            for (i, run) in runs.into_iter().enumerate() {
                let out = run.join().expect("the thread ends");
                assert!(
                    out.code == 0,
                    "round {round}, process {i}: exit {}\n{}",
                    out.code,
                    out.stderr
                );
                assert_eq!(out.stdout, "[]\n", "round {round}, process {i}");
            }
        });
    }
}

#[test]
fn an_import_killed_with_sigkill_leaves_all_or_none_of_the_bundle() {
    const PROMPTS: usize = 3000;
    let work = tempfile::tempdir().expect("temp dir");
    let key = KeyPair::generate().expect("a key");
    let prompts: Vec<(String, u64, Json)> = (0..PROMPTS)
        .map(|i| {
            let id = format!("bulk-{i:04}");
            let template = json!({
                "id": id,
                "title": format!("Bulk prompt {i}"),
                "template": format!("Prompt number {i} for {{{{who}}}}."),
                "slots": ["who"],
                "tags": ["bulk"],
                "owner": "loader",
            });
            (id, 1, template)
        })
        .collect();
    let bundle = make_bundle(&key, &prompts, SystemTime::now()).expect("each id once");
    let bundle_path = work.path().join("big.json");
    std::fs::write(
        &bundle_path,
        serde_json::to_string_pretty(&bundle).expect("JSON"),
    )
    .expect("writes the bundle");
    let bundle_arg = bundle_path.display().to_string();
    let did = key.did();

    let import = |lib: &Lib| {
        promptexec()
            .args(&[
                "prompt",
                "import",
                &bundle_arg,
                "--trust",
                &did,
                "--library",
                lib.path(),
            ])
            .spawn()
    };
    let count = |lib: &Lib| lib.json(&["prompt", "list"]).as_array().map_or(0, Vec::len);

    // Undisturbed, it imports everything; how long that takes sets the kill delays.
    let baseline = Lib::new();
    let started = Instant::now();
    let out = finish(import(&baseline));
    let full = started.elapsed();
    assert!(out.code == 0, "{}", out.stderr);
    assert_eq!(count(&baseline), PROMPTS);

    let mut killed = 0;
    for fraction in [0.05, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9] {
        let lib = Lib::new();
        let mut child = import(&lib);
        std::thread::sleep(full.mul_f64(fraction));
        child.kill().expect("SIGKILL is sent");
        let status = child.wait().expect("waited for");
        if status.signal() == Some(9) {
            killed += 1;
        }
        let listed = count(&lib);
        assert!(
            listed == 0 || listed == PROMPTS,
            "killed after {fraction} of the import ({status:?}): {listed} of {PROMPTS} prompts"
        );
        let conn = rusqlite::Connection::open(&lib.path).expect("the database opens");
        let integrity: String = conn
            .query_row("PRAGMA integrity_check", [], |row| row.get(0))
            .expect("integrity check runs");
        assert_eq!(integrity, "ok", "after {fraction}");
        lib.ok(&["prompt", "audit", "verify"]);
    }
    assert!(killed > 0, "no import was still running when killed");
}
