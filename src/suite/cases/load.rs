//! Reading a case file strictly: YAML or JSON by its extension, walked through the
//! positioned document layer so that every problem of the file is reported at once,
//! each at its `FILE:LINE:COL`, and a misspelt key is an error with a suggestion
//! rather than an expectation that silently never runs.

use std::path::Path;
use std::time::Duration;

use regex::Regex;
use serde_json::json;

use crate::doc::{
    Checker, Diagnostic, Fields, Loaded, Node, Pos, Rejected, UnknownKeys, Value, finish,
    parse_json, parse_yaml,
};

use super::model::{
    CallStatus, Case, CaseFile, HookCase, HookExpect, Located, Target, ToolCase, ToolExpect,
};
use super::snapshot::slug;

/// The keys only a tool case has, besides `tool`.
const TOOL_KEYS: &[&str] = &["args", "timeout_ms"];
/// The keys only a hook case has, besides `hook`.
const HOOK_KEYS: &[&str] = &["phase", "event"];
/// What a tool case may expect.
const TOOL_EXPECT: &[&str] = &["status", "result", "pointer", "matches", "snapshot"];
/// What a hook case may expect.
const HOOK_EXPECT: &[&str] = &["decision", "reason"];
/// The expectations that read a result, which only an `ok` call has.
const ON_RESULT: &[&str] = &["result", "pointer", "snapshot"];

/// Reads and checks the case file at `path`.
pub(crate) fn load(path: &Path) -> Result<Loaded<CaseFile>, Rejected> {
    let text = std::fs::read_to_string(path).map_err(|err| {
        Rejected(Diagnostic::whole_file(path, format!("cannot read file: {err}")).into())
    })?;
    let root = match extension(path) {
        Some("yaml" | "yml") => parse_yaml(path, &text),
        Some("json") => parse_json(path, &text),
        _ => Err(Diagnostic::whole_file(
            path,
            "a case file is YAML (.yaml, .yml) or JSON (.json)",
        )),
    }
    .map_err(|d| Rejected(d.into()))?;
    let mut cx = Checker::new(path, text);
    let file = resolve(&root, path, &mut cx);
    finish(file, cx.diagnostics)
}

fn extension(path: &Path) -> Option<&str> {
    path.extension().and_then(|e| e.to_str())
}

fn resolve(root: &Node, path: &Path, cx: &mut Checker) -> CaseFile {
    let mut file = CaseFile {
        path: path.to_path_buf(),
        pack: None,
        cases: Vec::new(),
    };
    let Some(mut top) = cx.map(root, "the case file") else {
        return file;
    };
    if let Some(node) = top.get("pack")
        && let Some(pack) = cx.nonempty_string(node, "pack")
    {
        let dir = path.parent().unwrap_or(Path::new(""));
        file.pack = Some(Located {
            value: dir.join(pack),
            pos: node.pos,
        });
    }
    match top.get("cases") {
        Some(node) => {
            if let Some(items) = cx.list(node, "cases") {
                let has_pack = file.pack.is_some();
                let mut names = Vec::new();
                for (index, item) in items.iter().enumerate() {
                    if let Some(case) = case(item, index, &mut names, has_pack, cx) {
                        file.cases.push(case);
                    }
                }
            }
        }
        None => cx.error(root.pos, "missing key `cases`: the list of cases to run"),
    }
    shared_snapshots(&file.cases, cx);
    cx.unknown_keys(&top, "the case file", UnknownKeys::Error);
    file
}

/// Two cases whose names make the same snapshot file name would overwrite each
/// other's snapshot.
fn shared_snapshots(cases: &[Case], cx: &mut Checker) {
    let mut taken: Vec<(String, &str)> = Vec::new();
    for case in cases {
        let Target::Tool(tool) = &case.target else {
            continue;
        };
        if !tool.expect.snapshot {
            continue;
        }
        let file = slug(&case.name);
        match taken.iter().find(|(other, _)| *other == file) {
            Some((_, first)) => cx.error(
                case.pos,
                format!(
                    "case `{}`: its snapshot would be `{file}.json`, as case `{first}`'s is; rename one",
                    case.name
                ),
            ),
            None => taken.push((file, &case.name)),
        }
    }
}

/// One case; `names` holds the names seen so far, for duplicates.
fn case(
    node: &Node,
    index: usize,
    names: &mut Vec<(String, Pos)>,
    has_pack: bool,
    cx: &mut Checker,
) -> Option<Case> {
    let mut f = cx.map(node, &format!("case {}", index + 1))?;
    let name = match f.get("name") {
        Some(n) => cx.nonempty_string(n, "name").map(|name| (name, n.pos)),
        None => {
            cx.error(node.pos, format!("case {} has no `name`", index + 1));
            None
        }
    };
    let label = match &name {
        Some((name, _)) => format!("case `{name}`"),
        None => format!("case {}", index + 1),
    };
    if let Some((name, pos)) = &name {
        match names.iter().find(|(seen, _)| seen == name) {
            Some((_, first)) => cx.error(
                *pos,
                format!(
                    "{label}: the name is taken by the case at line {}; names are unique in a file",
                    first.line
                ),
            ),
            None => names.push((name.clone(), *pos)),
        }
    }
    let target = match (f.entry("tool"), f.entry("hook")) {
        (Some((_, tool)), None) => tool_case(tool, &mut f, &label, has_pack, cx).map(Target::Tool),
        (None, Some((_, hook))) => hook_case(hook, &mut f, &label, cx).map(Target::Hook),
        (Some(_), Some((key, _))) => {
            cx.error(
                key.pos,
                format!("{label}: has both `tool` and `hook`; a case calls one extension"),
            );
            f.allow(&["expect"]);
            f.allow(TOOL_KEYS);
            f.allow(HOOK_KEYS);
            None
        }
        (None, None) => {
            cx.error(
                node.pos,
                format!("{label}: needs `tool` or `hook`, the extension it calls"),
            );
            f.allow(&["expect"]);
            f.allow(TOOL_KEYS);
            f.allow(HOOK_KEYS);
            None
        }
    };
    cx.unknown_keys(&f, &label, UnknownKeys::Error);
    Some(Case {
        name: name?.0,
        pos: node.pos,
        target: target?,
    })
}

fn tool_case(
    tool: &Node,
    f: &mut Fields<'_>,
    label: &str,
    has_pack: bool,
    cx: &mut Checker,
) -> Option<ToolCase> {
    let name = located_string(tool, &format!("{label}: tool"), cx);
    let args = match f.get("args") {
        Some(node) => cx.map(node, &format!("{label}: args")).map(|_| Located {
            value: node.to_json(),
            pos: node.pos,
        }),
        None => Some(Located {
            value: json!({}),
            pos: tool.pos,
        }),
    };
    let timeout = match f.get("timeout_ms") {
        Some(node) => cx
            .positive_integer(node, &format!("{label}: timeout_ms"))
            .map(|ms| Some(Duration::from_millis(ms))),
        None => Some(None),
    };
    let calls = format!("this case calls tool `{}`", tool.as_str().unwrap_or("?"));
    misplaced(f, HOOK_KEYS, "hook cases", label, &calls, cx);
    // An MCP tool's schema comes from its server, so it needs no pack.
    let schema_known = has_pack || tool.as_str().is_some_and(crate::mcp::is_mcp);
    let expect = match f.get("expect") {
        Some(node) => tool_expect(node, label, schema_known, cx),
        None => Some(ToolExpect::default()),
    };
    Some(ToolCase {
        tool: name?,
        args: args?,
        timeout: timeout?,
        expect: expect?,
    })
}

fn tool_expect(
    node: &Node,
    label: &str,
    schema_known: bool,
    cx: &mut Checker,
) -> Option<ToolExpect> {
    let mut f = cx.map(node, &format!("{label}: expect"))?;
    let mut ok = true;
    let status = match f.get("status") {
        Some(n) => {
            let status = cx.choice(n, &format!("{label}: expect.status"), CallStatus::WIRE);
            if status == Some(CallStatus::InvalidArgs) && !schema_known {
                cx.error(
                    n.pos,
                    format!("{label}: expect.status: `invalid_args` needs the file's `pack`, whose schema the arguments are checked against"),
                );
                ok = false;
            }
            status
        }
        None => Some(CallStatus::Ok),
    };
    let mut expect = ToolExpect {
        result: f.get("result").map(Node::to_json),
        ..ToolExpect::default()
    };
    if let Some(n) = f.get("pointer") {
        match pointers(n, label, cx) {
            Some(pointers) => expect.pointers = pointers,
            None => ok = false,
        }
    }
    if let Some(n) = f.get("matches") {
        match pattern(n, &format!("{label}: expect.matches"), cx) {
            Some(re) => expect.matches = Some(re),
            None => ok = false,
        }
    }
    if let Some(n) = f.get("snapshot") {
        match cx.boolean(n, &format!("{label}: expect.snapshot")) {
            Some(wanted) => expect.snapshot = wanted,
            None => ok = false,
        }
    }
    if let Some(status) = status
        && status != CallStatus::Ok
    {
        for name in ON_RESULT {
            let Some((key, n)) = f.entry(name) else {
                continue;
            };
            // `snapshot: false` asks for nothing.
            if *name == "snapshot" && n.value != Value::Bool(true) {
                continue;
            }
            cx.error(
                key.pos,
                format!(
                    "{label}: expect.{name} reads the result, which only an `ok` call has (this case expects `{status}`)"
                ),
            );
            ok = false;
        }
    }
    misplaced(
        &mut f,
        HOOK_EXPECT,
        "hook cases",
        &format!("{label}: expect"),
        "a tool case expects `status`, `result`, `pointer`, `matches` or `snapshot`",
        cx,
    );
    cx.unknown_keys(&f, &format!("`expect` of {label}"), UnknownKeys::Error);
    expect.status = status?;
    ok.then_some(expect)
}

/// `pointer:` — a mapping from JSON pointer to the value expected there.
fn pointers(
    node: &Node,
    label: &str,
    cx: &mut Checker,
) -> Option<Vec<(String, serde_json::Value)>> {
    cx.map(node, &format!("{label}: expect.pointer"))?;
    let Value::Map(entries) = &node.value else {
        return None;
    };
    let mut ok = true;
    let mut out = Vec::new();
    for (key, value) in entries {
        if key.name.is_empty() || key.name.starts_with('/') {
            out.push((key.name.clone(), value.to_json()));
        } else {
            cx.error(
                key.pos,
                format!(
                    "{label}: expect.pointer: `{}` is not a JSON pointer; one starts with `/`, as in `/{}`",
                    key.name, key.name
                ),
            );
            ok = false;
        }
    }
    ok.then_some(out)
}

fn hook_case(hook: &Node, f: &mut Fields<'_>, label: &str, cx: &mut Checker) -> Option<HookCase> {
    let name = located_string(hook, &format!("{label}: hook"), cx);
    let phase = match f.get("phase") {
        Some(node) => located_string(node, &format!("{label}: phase"), cx).map(Some),
        None => Some(None),
    };
    let event = match f.get("event") {
        Some(node) => cx.map(node, &format!("{label}: event")).map(|_| {
            Some(Located {
                value: node.to_json(),
                pos: node.pos,
            })
        }),
        None => Some(None),
    };
    let calls = format!("this case calls hook `{}`", hook.as_str().unwrap_or("?"));
    misplaced(f, TOOL_KEYS, "tool cases", label, &calls, cx);
    let expect = match f.get("expect") {
        Some(node) => hook_expect(node, label, cx),
        None => Some(HookExpect::default()),
    };
    Some(HookCase {
        hook: name?,
        phase: phase?,
        event: event?,
        expect: expect?,
    })
}

fn hook_expect(node: &Node, label: &str, cx: &mut Checker) -> Option<HookExpect> {
    let mut f = cx.map(node, &format!("{label}: expect"))?;
    let decision = match f.get("decision") {
        Some(n) => located_string(n, &format!("{label}: expect.decision"), cx).map(Some),
        None => Some(None),
    };
    let reason = match f.get("reason") {
        Some(n) => pattern(n, &format!("{label}: expect.reason"), cx).map(Some),
        None => Some(None),
    };
    misplaced(
        &mut f,
        TOOL_EXPECT,
        "tool cases",
        &format!("{label}: expect"),
        "a hook case expects `decision` or `reason`",
        cx,
    );
    cx.unknown_keys(&f, &format!("`expect` of {label}"), UnknownKeys::Error);
    Some(HookExpect {
        decision: decision?,
        reason: reason?,
    })
}

/// Keys that belong to the other kind of case are named as such, not as unknown.
fn misplaced(
    f: &mut Fields<'_>,
    names: &[&'static str],
    owner: &str,
    label: &str,
    instead: &str,
    cx: &mut Checker,
) {
    for name in names {
        if let Some((key, _)) = f.entry(name) {
            cx.error(
                key.pos,
                format!("{label}: `{name}` is for {owner}; {instead}"),
            );
        }
    }
}

fn located_string(node: &Node, what: &str, cx: &mut Checker) -> Option<Located<String>> {
    cx.nonempty_string(node, what).map(|value| Located {
        value,
        pos: node.pos,
    })
}

/// A regular expression, compiled once here so a bad one is a load error.
fn pattern(node: &Node, what: &str, cx: &mut Checker) -> Option<Regex> {
    let source = cx.string(node, what)?;
    match Regex::new(&source) {
        Ok(re) => Some(re),
        Err(err) => {
            cx.error(
                node.pos,
                format!("{what}: not a valid regular expression: {}", one_line(&err)),
            );
            None
        }
    }
}

/// The regex crate draws the pattern with a caret under the problem; a diagnostic
/// already points at the pattern, so only the last line, what is wrong, is kept.
fn one_line(err: &regex::Error) -> String {
    let text = err.to_string();
    let last = text.lines().last().unwrap_or_default();
    last.strip_prefix("error: ").unwrap_or(last).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` loaded as file `name` in a temporary directory; the path in its
    /// diagnostics cut to the file name.
    fn load_text(name: &str, text: &str) -> (Result<CaseFile, Rejected>, String) {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        let prefix = format!("{}/", dir.path().display());
        (load(&path).map(|loaded| loaded.value), prefix)
    }

    /// The file `text` makes, which must load.
    #[track_caller]
    fn loaded(name: &str, text: &str) -> CaseFile {
        match load_text(name, text) {
            (Ok(file), _) => file,
            (Err(Rejected(problems)), _) => panic!("refused:\n{problems}"),
        }
    }

    /// The problems of `text`, which must be refused, one per line.
    #[track_caller]
    fn problems(name: &str, text: &str) -> String {
        match load_text(name, text) {
            (Ok(file), _) => panic!("loaded: {file:?}"),
            (Err(Rejected(problems)), prefix) => problems.sorted().to_string().replace(&prefix, ""),
        }
    }

    #[test]
    fn a_tool_case_and_a_hook_case_load_with_their_defaults() {
        let file = loaded(
            "a.cases.yaml",
            "pack: ../p.json\ncases:\n  - name: finds it\n    tool: lookup\n    args: {id: 7}\n  - name: guards\n    hook: guard\n",
        );
        let pack = file.pack.expect("a pack");
        assert!(pack.value.ends_with("../p.json"), "{:?}", pack.value);
        let Target::Tool(tool) = &file.cases[0].target else {
            panic!("a tool case")
        };
        assert_eq!(tool.args.value, json!({"id": 7}));
        assert_eq!(tool.expect.status, CallStatus::Ok);
        let Target::Hook(hook) = &file.cases[1].target else {
            panic!("a hook case")
        };
        assert_eq!(hook.hook.value, "guard");
        assert!(hook.phase.is_none() && hook.event.is_none());
        assert!(hook.expect.decision.is_none());
    }

    #[test]
    fn json_case_files_read_the_same() {
        let file = loaded(
            "a.cases.json",
            r#"{"cases": [{"name": "n", "tool": "t", "expect": {"status": "error", "matches": "no"}}]}"#,
        );
        let Target::Tool(tool) = &file.cases[0].target else {
            panic!("a tool case")
        };
        assert_eq!(tool.expect.status, CallStatus::Error);
    }

    #[test]
    fn every_problem_of_a_file_is_reported_with_its_place() {
        let problems = problems(
            "bad.cases.yaml",
            "cases:
  - name: one
    tool: lookup
    argz: {}
    expect: {stauts: ok}
  - name: one
    tool: lookup
    hook: guard
  - name: two
    hook: guard
    args: {}
    expect: {status: ok, reason: '('}
  - name: three
    tool: lookup
    expect: {status: error, result: 1, pointer: {status: 1}}
",
        );
        assert_eq!(
            problems,
            "bad.cases.yaml:4:5: unknown key `argz` in case `one`; did you mean `args`?
bad.cases.yaml:5:14: unknown key `stauts` in `expect` of case `one`; did you mean `status`?
bad.cases.yaml:6:11: case `one`: the name is taken by the case at line 2; names are unique in a file
bad.cases.yaml:8:5: case `one`: has both `tool` and `hook`; a case calls one extension
bad.cases.yaml:11:5: case `two`: `args` is for tool cases; this case calls hook `guard`
bad.cases.yaml:12:14: case `two`: expect: `status` is for tool cases; a hook case expects `decision` or `reason`
bad.cases.yaml:12:34: case `two`: expect.reason: not a valid regular expression: unclosed group
bad.cases.yaml:15:29: case `three`: expect.result reads the result, which only an `ok` call has (this case expects `error`)
bad.cases.yaml:15:40: case `three`: expect.pointer reads the result, which only an `ok` call has (this case expects `error`)
bad.cases.yaml:15:50: case `three`: expect.pointer: `status` is not a JSON pointer; one starts with `/`, as in `/status`
"
        );
    }

    #[test]
    fn the_file_itself_must_be_a_case_file() {
        assert_eq!(
            problems("a.cases.txt", "cases: []"),
            "a.cases.txt: a case file is YAML (.yaml, .yml) or JSON (.json)\n"
        );
        assert_eq!(
            problems("a.cases.yaml", "{}"),
            "a.cases.yaml:1:1: missing key `cases`: the list of cases to run\n"
        );
        assert_eq!(
            problems("a.cases.yaml", "cases:\n  - tool: t\n"),
            "a.cases.yaml:2:5: case 1 has no `name`\n"
        );
        assert_eq!(
            problems(
                "a.cases.yaml",
                "cases:\n  - {name: x, tool: t, expect: {status: invalid_args}}\n"
            ),
            "a.cases.yaml:2:41: case `x`: expect.status: `invalid_args` needs the file's `pack`, whose schema the arguments are checked against\n"
        );
    }

    #[test]
    fn two_snapshot_cases_cannot_share_a_file() {
        let problems = problems(
            "s.cases.yaml",
            "cases:
  - {name: Finds it, tool: t, expect: {snapshot: true}}
  - {name: finds-it, tool: t, expect: {snapshot: true}}
",
        );
        assert_eq!(
            problems,
            "s.cases.yaml:3:5: case `finds-it`: its snapshot would be `finds-it.json`, as case `Finds it`'s is; rename one\n"
        );
    }
}
