//! What the prompt library's guarantees cost, against baselines measured in the
//! same run:
//! - a render from the library with its audit record (a hash-chained row written in
//!   an immediate transaction and synced) against the same template rendered in
//!   memory;
//! - `list` (latest versions, ratings, a tag filter) over 1,000 prompts against a raw
//!   SELECT of the same rows;
//! - at 10,000 prompts, the commands as a user runs them, one process each:
//!   `prompt search WORD` and `prompt list --tag T` against the equivalent raw query
//!   on the same file, run by a process that opens it with SQLite and prints the rows
//!   (this program with `--raw-query`, and the `sqlite3` shell when installed), and
//!   `prompt add DIR` of 10,000 template files against inserting the same files in
//!   one transaction raw (`--raw-insert`) and against one `prompt add FILE` each.
//!
//! Run: `cargo bench --bench library` (BENCH_ROUNDS=N to change the round count,
//! BENCH_PROMPTS=N the size of the large library).

#[path = "library/at_scale.rs"]
mod at_scale;

use std::time::{Duration, Instant};

use indexmap::IndexMap;
use promptexec::library::{Library, parse_template};
use serde_json::{Value as Json, json};

fn template(i: usize) -> Json {
    json!({
        "id": format!("prompt-{i}"),
        "title": format!("Prompt number {i}"),
        "description": "A prompt for the benchmark",
        "template": "Please help {{name}} with {{topic}}.",
        "slots": [{"name": "name", "sensitive": true, "max_length": 40}, "topic"],
        "tags": ["bench", if i.is_multiple_of(2) { "even" } else { "odd" }],
        "owner": "bench",
        "auditable": true
    })
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    if at_scale::raw_mode() {
        return;
    }
    let rounds: usize = std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let dir = tempfile::tempdir().expect("bench dir");
    let mut library = Library::open(&dir.path().join("bench.db")).expect("library");
    let prompts: Vec<Json> = (0..1000).map(template).collect();
    library
        .add_all(&prompts, "bench")
        .expect("fill the library");
    let parsed = parse_template(std::path::Path::new("prompt-0"), &template(0).to_string())
        .expect("parses")
        .value;
    let mut inputs = IndexMap::new();
    inputs.insert("name".to_string(), json!("Dana"));
    inputs.insert("topic".to_string(), json!("running"));

    let (mut in_memory, mut audited) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let started = Instant::now();
        let text = parsed.render(&inputs).expect("renders");
        std::hint::black_box(text);
        in_memory.push(started.elapsed());

        let started = Instant::now();
        let stored = library.get("prompt-0", None).expect("stored");
        let template = parse_template(
            std::path::Path::new("prompt-0"),
            &stored.content.to_string(),
        )
        .expect("parses")
        .value;
        let text = template.render(&inputs).expect("renders");
        library
            .record_render(
                "bench",
                "prompt-0",
                stored.version,
                json!({"name": "[redacted]", "topic": "running"}),
            )
            .expect("audited");
        std::hint::black_box(text);
        audited.push(started.elapsed());
    }
    let (base, with_audit) = (median(in_memory), median(audited));
    println!("render, {rounds} rounds (medians):");
    println!("  in memory (baseline)         {base:>10.2?}  1.00x");
    println!(
        "  from the library, audited    {with_audit:>10.2?}  {:.1}x",
        with_audit.as_secs_f64() / base.as_secs_f64()
    );

    // The floor for `list`: the same rows read raw, without a library around them.
    let raw = rusqlite::Connection::open(dir.path().join("bench.db")).expect("raw connection");
    let (mut scanned, mut listed) = (Vec::new(), Vec::new());
    for _ in 0..rounds.min(50) {
        let started = Instant::now();
        let mut statement = raw
            .prepare("SELECT content FROM versions")
            .expect("prepare");
        let rows: Vec<String> = statement
            .query_map([], |row| row.get(0))
            .expect("query")
            .collect::<Result<_, _>>()
            .expect("rows");
        std::hint::black_box(rows);
        scanned.push(started.elapsed());
        let started = Instant::now();
        std::hint::black_box(library.list(&["even".to_string()]).expect("list"));
        listed.push(started.elapsed());
    }
    let (scan, list) = (median(scanned), median(listed));
    println!("1,000 prompts (medians):");
    println!("  raw SELECT of every row (floor) {scan:>10.2?}  1.00x");
    println!(
        "  list --tag even                 {list:>10.2?}  {:.1}x",
        list.as_secs_f64() / scan.as_secs_f64()
    );
    assert!(
        library.verify_audit().expect("reads").is_ok(),
        "the chain holds"
    );
    at_scale::run(rounds.min(15), median);
}
