//! The library at 10,000 prompts through the real binary, against raw SQLite run by
//! a process of the same kind, rounds interleaved so noise hits every side alike.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

/// The word searched for: the topic of one prompt in [`TOPICS`].
const WORD: &str = "topic42";
/// The tag listed: carried by one prompt in [`TEAMS`].
const TAG: &str = "team-3";
const TOPICS: usize = 100;
const TEAMS: usize = 50;

/// What `prompt search WORD` prints, read raw: the full-text query, ranked.
const RAW_SEARCH: &str = "SELECT k.prompt_id, s.title, s.tags
    FROM prompt_search s JOIN search_keys k ON k.key = s.rowid
    WHERE prompt_search MATCH '\"topic42\"*'
    ORDER BY bm25(prompt_search, 8.0, 4.0, 2.0, 1.0), k.prompt_id";
/// What `prompt list --tag T` prints, read raw: the tagged prompts' latest versions.
const RAW_LIST: &str = "SELECT t.prompt_id, v.content ->> '$.title', v.content ->> '$.tags'
    FROM prompt_tags t JOIN versions v ON v.prompt_id = t.prompt_id
    WHERE t.tag = 'team-3'
      AND v.version = (SELECT MAX(version) FROM versions w WHERE w.prompt_id = t.prompt_id)
    ORDER BY t.prompt_id";

/// Runs this program's raw modes when asked (`--raw-query DB SQL`, `--raw-insert DB
/// DIR`); false when it is the benchmark itself.
pub fn raw_mode() -> bool {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("--raw-query") => raw_query(Path::new(&args[2]), &args[3]),
        Some("--raw-insert") => raw_insert(Path::new(&args[2]), Path::new(&args[3])),
        _ => return false,
    }
    true
}

/// Opens the library file and prints every row of `sql`, columns joined by `|`.
fn raw_query(db: &Path, sql: &str) {
    use std::io::Write;
    let conn = rusqlite::Connection::open(db).expect("opens");
    let mut statement = conn.prepare(sql).expect("prepares");
    let columns = statement.column_count();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut rows = statement.query([]).expect("queries");
    while let Some(row) = rows.next().expect("a row") {
        let cells: Vec<String> = (0..columns)
            .map(|i| {
                row.get::<_, Option<String>>(i)
                    .ok()
                    .flatten()
                    .unwrap_or_default()
            })
            .collect();
        writeln!(out, "{}", cells.join("|")).expect("prints");
    }
}

/// Every file of `dir` into a plain table, in one transaction.
fn raw_insert(db: &Path, dir: &Path) {
    let mut conn = rusqlite::Connection::open(db).expect("opens");
    conn.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
         CREATE TABLE IF NOT EXISTS t (name TEXT PRIMARY KEY, content TEXT NOT NULL)",
    )
    .expect("table");
    let tx = conn.transaction().expect("begins");
    for entry in std::fs::read_dir(dir).expect("lists") {
        let path = entry.expect("entry").path();
        let content = std::fs::read_to_string(&path).expect("reads");
        tx.execute(
            "INSERT OR REPLACE INTO t VALUES (?1, ?2)",
            (path.display().to_string(), content),
        )
        .expect("inserts");
    }
    tx.commit().expect("commits");
}

fn template(i: usize) -> serde_json::Value {
    json!({
        "id": format!("prompt-{i:05}"),
        "title": format!("Prompt {i} about topic{}", i % TOPICS),
        "description": "A prompt for the library benchmark",
        "template": "Please help {{name}} with {{subject}} in the usual way.",
        "slots": ["name", "subject"],
        "tags": ["bench", format!("team-{}", i % TEAMS)],
        "owner": "bench"
    })
}

/// Wall time of one process, which must succeed; its output is read and dropped.
fn timed(command: &mut Command) -> Duration {
    timed_with_cpu(command).0
}

/// Wall and CPU time (user + system, 10 ms ticks; zero where /proc is missing) of
/// one process. CPU time says what the wall time would be on an idle machine.
fn timed_with_cpu(command: &mut Command) -> (Duration, Duration) {
    let before = children_cpu();
    let wall = run_timed(command);
    (wall, children_cpu().saturating_sub(before))
}

/// CPU time of every child waited for so far (`cutime` + `cstime` of /proc/self/stat).
fn children_cpu() -> Duration {
    let ticks = std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|stat| {
            // Fields after the command name start at the third, the state.
            let fields: Vec<u64> = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .map(|f| f.parse().unwrap_or(0))
                .collect();
            Some(fields.get(13)? + fields.get(14)?)
        })
        .unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

fn run_timed(command: &mut Command) -> Duration {
    let started = Instant::now();
    let out = command
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .stdout(Stdio::piped())
        .output()
        .expect("starts");
    let took = started.elapsed();
    assert!(
        out.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

/// The large-library figures, printed as ratios against their baselines.
pub fn run(rounds: usize, median: fn(Vec<Duration>) -> Duration) {
    let prompts: usize = std::env::var("BENCH_PROMPTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let promptexec = PathBuf::from(env!("CARGO_BIN_EXE_promptexec"));
    let me = std::env::current_exe().expect("own path");
    let sqlite3 = which("sqlite3");
    let dir = tempfile::tempdir().expect("bench dir");
    let templates = dir.path().join("templates");
    std::fs::create_dir(&templates).expect("templates dir");
    for i in 0..prompts {
        std::fs::write(
            templates.join(format!("p{i:05}.json")),
            template(i).to_string(),
        )
        .expect("template file");
    }
    let library = |name: &str| dir.path().join(name);
    let cli = |db: &Path, args: &[&str]| {
        let mut command = Command::new(&promptexec);
        command.args(args).arg("--library").arg(db);
        command
    };

    // Adding: one command for the whole directory, against raw inserts in one
    // transaction; a fresh library each round.
    let add_rounds = rounds.clamp(1, 3);
    let (mut added, mut inserted) = (Vec::new(), Vec::new());
    let (mut added_cpu, mut inserted_cpu) = (Vec::new(), Vec::new());
    for round in 0..add_rounds {
        let db = library(&format!("add-{round}.db"));
        let (wall, cpu) = timed_with_cpu(cli(&db, &["prompt", "add"]).arg(&templates));
        added.push(wall);
        added_cpu.push(cpu);
        let raw = library(&format!("raw-{round}.db"));
        let (wall, cpu) = timed_with_cpu(
            Command::new(&me)
                .arg("--raw-insert")
                .arg(&raw)
                .arg(&templates),
        );
        inserted.push(wall);
        inserted_cpu.push(cpu);
    }
    // One process per file, as adding many templates took before: a sample of them.
    let sample = prompts.min(100);
    let db = library("one-by-one.db");
    let started = Instant::now();
    for i in 0..sample {
        timed(cli(&db, &["prompt", "add"]).arg(templates.join(format!("p{i:05}.json"))));
    }
    let one_by_one = started.elapsed().as_secs_f64() / sample as f64 * prompts as f64;
    let (add, insert) = (median(added), median(inserted));
    let (add_cpu, insert_cpu) = (median(added_cpu), median(inserted_cpu));
    println!("adding {prompts} templates ({add_rounds} rounds, medians; wall, then CPU):");
    println!(
        "  raw inserts, one transaction (floor) {insert:>10.2?}  1.00x  cpu {insert_cpu:>10.2?}"
    );
    println!(
        "  prompt add DIR (one command)         {add:>10.2?}  {:.2}x  cpu {add_cpu:>10.2?}",
        ratio(add, insert)
    );
    println!(
        "  prompt add FILE, one process each    {:>10.2?}  {:.2}x  (from {sample} files)",
        Duration::from_secs_f64(one_by_one),
        one_by_one / insert.as_secs_f64()
    );

    // Reading: the library the first round filled.
    let db = library("add-0.db");
    let search_args = ["prompt", "search", WORD];
    let list_args = ["prompt", "list", "--tag", TAG];
    let mut sides: Vec<(&str, Vec<Duration>)> = Vec::new();
    for name in [
        "raw search (--raw-query)",
        "raw search (sqlite3)",
        "prompt search WORD",
        "prompt search WORD --format json",
        "raw list --tag (--raw-query)",
        "raw list --tag (sqlite3)",
        "prompt list --tag T",
        "prompt list --tag T --format json",
    ] {
        sides.push((name, Vec::new()));
    }
    for _ in 0..rounds.max(3) {
        for (i, (_, samples)) in sides.iter_mut().enumerate() {
            let mut command = match i {
                0 | 4 => {
                    let mut c = Command::new(&me);
                    c.arg("--raw-query").arg(&db);
                    c.arg(if i == 0 { RAW_SEARCH } else { RAW_LIST });
                    c
                }
                1 | 5 => match &sqlite3 {
                    Some(sqlite3) => {
                        let mut c = Command::new(sqlite3);
                        c.arg(&db).arg(if i == 1 { RAW_SEARCH } else { RAW_LIST });
                        c
                    }
                    None => continue,
                },
                2 | 3 => cli(&db, &search_args),
                _ => cli(&db, &list_args),
            };
            if i == 3 || i == 7 {
                command.args(["--format", "json"]);
            }
            samples.push(timed(&mut command));
        }
    }
    let figures: Vec<(&str, Option<Duration>)> = sides
        .into_iter()
        .map(|(name, samples)| (name, (!samples.is_empty()).then(|| median(samples))))
        .collect();
    println!(
        "{prompts} prompts, one process per query ({} rounds, medians; search `{WORD}` finds {}, tag `{TAG}` {}):",
        rounds.max(3),
        prompts.div_ceil(TOPICS),
        prompts.div_ceil(TEAMS)
    );
    for (base, ours) in [(0, [2, 3]), (4, [6, 7])] {
        let Some(floor) = figures[base].1 else {
            continue;
        };
        println!("  {:<36} {floor:>10.2?}  1.00x", figures[base].0);
        if let Some(other) = figures[base + 1].1 {
            println!(
                "  {:<36} {other:>10.2?}  {:.2}x",
                figures[base + 1].0,
                ratio(other, floor)
            );
        }
        for i in ours {
            let took = figures[i].1.expect("always measured");
            println!(
                "  {:<36} {took:>10.2?}  {:.2}x",
                figures[i].0,
                ratio(took, floor)
            );
        }
    }
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}

/// A program on `PATH`, if installed.
fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|path| path.is_file())
    })
}
