//! The layer rule, read off the source: every reference one top-level module of
//! `src/` makes to another (`crate::x::…`, `use crate::{x::…, y::…}`, `super::` paths
//! that climb out of the module, `crate::m!` macros, counted for the module that
//! defines them) must point to a lower layer of [`LAYERS`].
//!
//! Test code is not checked: items under `#[cfg(test)]` and the files of
//! `#[cfg(test)] mod x;` may import any module, because a test of a low module may
//! build its fixture with a higher one and none of it is compiled into promptexec.
//! Comments (doc links included) and string literals are not references either.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use lex::{blank_comments_and_literals, matching_brace, tokenize};

mod lex;

/// The layers, bottom up. A module imports only modules in a LOWER layer; modules in
/// the same layer must not import each other. `main.rs` and `lib.rs` sit above all.
/// `wire` holds only the `wire_enum!` macro, which the vocabulary at layer 0 uses.
const LAYERS: &[(i32, &[&str])] = &[
    (-1, &["wire"]),
    (
        0,
        &[
            "doc",
            "peer_text",
            "secret",
            "conversation",
            "diff",
            "go_template",
            "agents",
            "sarif",
            "watch",
        ],
    ),
    (1, &["atomic_file", "template", "config", "dotprompt"]),
    (2, &["library", "exec"]),
    (3, &["tools", "hooks"]),
    (4, &["provider"]),
    (5, &["mcp"]),
    (6, &["tool_caller", "pack"]),
    (7, &["evals", "lock"]),
    (8, &["session", "chain"]),
    (9, &["report", "arena"]),
    (10, &["suite", "check", "compare"]),
    (11, &["ui"]),
    (12, &["cli"]),
    (13, &["commands"]),
];

#[test]
fn every_import_points_to_a_lower_layer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sources = read_sources(&root.join("src"), root);
    let found = check(&sources, LAYERS);
    assert!(
        found.references > 500,
        "only {} references between modules were found: the scanner is broken",
        found.references
    );
    assert!(
        found.problems.is_empty(),
        "{} problem(s) with the layers (see the table in tests/cli/layers.rs):\n{}",
        found.problems.len(),
        found.problems.join("\n")
    );
}

/// The checker itself, on a small tree: it must name what it is meant to catch and
/// nothing that only looks like an import.
#[test]
fn the_check_names_upward_imports_and_ignores_tests_comments_and_strings() {
    let files = [
        (
            "src/lib.rs",
            "mod low;\nmod mid;\nmod high;\nmod loose;\n#[cfg(test)]\nmod helpers;\n",
        ),
        (
            "src/low.rs",
            "//! See [`crate::high`].\nuse crate::{\n    mid::Thing,\n    low_again,\n};\n\
             const S: &str = \"crate::high::x\";\nconst C: char = '{';\n\
             fn f<'a>(x: &'a str) { crate::high::go(x); }\n\
             #[cfg(test)]\nmod tests {\n    use crate::high::Anything;\n}\n\
             #[cfg(test)]\nmod more_tests;\n",
        ),
        ("src/low/more_tests.rs", "use crate::high::Fine;\n"),
        ("src/mid/mod.rs", "mod inner;\ncrate::made_in_high! {}\n"),
        (
            "src/mid/inner.rs",
            "use super::super::low::Ok;\nuse super::super::high::NotOk;\n",
        ),
        (
            "src/high.rs",
            "use crate::{low::A, mid::{B, C}};\n#[macro_export]\nmacro_rules! made_in_high { () => {} }\n",
        ),
        ("src/loose.rs", ""),
        ("src/helpers.rs", "use crate::high::Whatever;\n"),
        ("src/orphan.rs", ""),
    ];
    let sources = files
        .iter()
        .map(|(path, text)| (PathBuf::from(path), text.to_string()))
        .collect();
    let table: &[(i32, &[&str])] = &[(0, &["low"]), (1, &["mid"]), (2, &["high", "gone"])];
    let found = check(&sources, table);
    let expected = [
        "layer table: module `gone` does not exist",
        "src/lib.rs: module `loose` is missing from the layer table: place it in a layer",
        "src/low.rs:3: low (layer 0) imports mid (layer 1)",
        "src/low.rs:4: low (layer 0) imports low_again, which is not a module",
        "src/low.rs:8: low (layer 0) imports high (layer 2)",
        "src/mid/inner.rs:2: mid (layer 1) imports high (layer 2)",
        "src/mid/mod.rs:2: mid (layer 1) imports high (layer 2)",
        "src/orphan.rs: not reached from src/lib.rs through `mod` declarations",
    ];
    assert_eq!(found.problems, expected);
    assert_eq!(found.references, 8);
}

/// What the check found: how many references between modules it read, and every
/// problem as one line.
struct Found {
    references: usize,
    problems: Vec<String>,
}

/// Every `.rs` file under `src`, keyed by its path relative to `root`.
fn read_sources(src: &Path, root: &Path) -> BTreeMap<PathBuf, String> {
    let mut sources = BTreeMap::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("read src") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("read source");
                let rel = path.strip_prefix(root).expect("under root").to_path_buf();
                sources.insert(rel, text);
            }
        }
    }
    sources
}

fn check(sources: &BTreeMap<PathBuf, String>, table: &[(i32, &[&str])]) -> Found {
    let layer_of: BTreeMap<&str, i32> = table
        .iter()
        .flat_map(|(layer, mods)| mods.iter().map(move |m| (*m, *layer)))
        .collect();
    let tree = walk(sources);
    let mut problems = Vec::new();
    for module in layer_of.keys() {
        if !tree.top.contains_key(*module) {
            problems.push(format!("layer table: module `{module}` does not exist"));
        }
    }
    for (module, is_test) in &tree.top {
        if !is_test && !layer_of.contains_key(module.as_str()) {
            problems.push(format!(
                "src/lib.rs: module `{module}` is missing from the layer table: place it in a layer"
            ));
        }
    }
    for path in sources.keys() {
        if !tree.reached.contains(path) && !path.ends_with("src/main.rs") {
            let path = path.display();
            problems.push(format!(
                "{path}: not reached from src/lib.rs through `mod` declarations"
            ));
        }
    }
    for r in &tree.references {
        let target = match &r.target {
            Target::Module(name) => name.clone(),
            Target::Macro(name) => tree.macros.get(name).unwrap_or(name).clone(),
        };
        let from = layer_of.get(r.from.as_str());
        let to = layer_of.get(target.as_str());
        let place = format!("{}:{}", r.file.display(), r.line);
        let describe = |m: &str, l: Option<&i32>| match l {
            Some(l) => format!("{m} (layer {l})"),
            None => m.to_string(),
        };
        match (from, to) {
            (Some(from), Some(to)) if to < from => {}
            (Some(_), Some(_)) => problems.push(format!(
                "{place}: {} imports {}",
                describe(&r.from, from),
                describe(&target, to)
            )),
            (_, None) if !tree.top.contains_key(&target) => problems.push(format!(
                "{place}: {} imports {target}, which is not a module",
                describe(&r.from, from)
            )),
            // A module missing from the table is reported once, above.
            _ => {}
        }
    }
    // By file, then line.
    problems.sort_by_key(|p| {
        let mut parts = p.splitn(3, ':');
        let file = parts.next().unwrap_or_default().to_string();
        let line: usize = parts.next().and_then(|l| l.parse().ok()).unwrap_or(0);
        (file, line, p.clone())
    });
    let references = tree.references.len();
    Found {
        references,
        problems,
    }
}

enum Target {
    Module(String),
    Macro(String),
}

/// One reference from a file of top-level module `from` to another top-level module.
struct Reference {
    file: PathBuf,
    line: usize,
    from: String,
    target: Target,
}

/// The module tree read from `src/lib.rs`: top-level modules (and whether they are
/// test-only), the files reached, the references out of production code, and the
/// module each `#[macro_export]` macro is defined in.
#[derive(Default)]
struct Tree {
    top: BTreeMap<String, bool>,
    reached: BTreeSet<PathBuf>,
    references: Vec<Reference>,
    macros: BTreeMap<String, String>,
}

fn walk(sources: &BTreeMap<PathBuf, String>) -> Tree {
    let mut tree = Tree::default();
    // (file, module path, test-only)
    let mut queue = vec![(PathBuf::from("src/lib.rs"), Vec::<String>::new(), false)];
    while let Some((file, path, is_test)) = queue.pop() {
        let Some(text) = sources.get(&file) else {
            continue;
        };
        tree.reached.insert(file.clone());
        let scan = scan(text);
        let dir = child_dir(&file);
        for decl in &scan.mods {
            let mut child_path = path.clone();
            child_path.extend(decl.inline.iter().cloned());
            child_path.push(decl.name.clone());
            let mut base = dir.clone();
            base.extend(decl.inline.iter());
            let flat = base.join(format!("{}.rs", decl.name));
            let nested = base.join(&decl.name).join("mod.rs");
            let child = if sources.contains_key(&flat) {
                flat
            } else {
                nested
            };
            let child_test = is_test || decl.test;
            if path.is_empty() && decl.inline.is_empty() {
                tree.top.insert(decl.name.clone(), child_test);
            }
            queue.push((child, child_path, child_test));
        }
        if is_test || path.is_empty() {
            continue;
        }
        let top = path[0].clone();
        for name in &scan.macros {
            tree.macros.insert(name.clone(), top.clone());
        }
        for (line, depth, target) in scan.references {
            // `crate::` is depth 0; `super::` n times from module path p reaches p[..len-n].
            let module_depth = path.len() + depth.inline;
            if depth.supers > 0 && depth.supers != module_depth {
                continue;
            }
            let name = match &target {
                Target::Module(n) | Target::Macro(n) => n,
            };
            if name == &top || name == "self" {
                continue;
            }
            tree.references.push(Reference {
                file: file.clone(),
                line,
                from: top.clone(),
                target,
            });
        }
    }
    tree
}

/// Where the files of a file's child modules live.
fn child_dir(file: &Path) -> PathBuf {
    let parent = file.parent().unwrap_or(Path::new("")).to_path_buf();
    match file.file_name().and_then(|n| n.to_str()) {
        Some("lib.rs" | "main.rs" | "mod.rs") => parent,
        _ => parent.join(file.file_stem().expect("file stem")),
    }
}

struct ModDecl {
    name: String,
    /// The inline modules (`mod x { … }`) the declaration sits in.
    inline: Vec<String>,
    test: bool,
}

/// How a path starts: `crate::` (no supers) or `super::` `supers` times, seen from
/// `inline` levels of inline modules inside the file's module.
struct Start {
    supers: usize,
    inline: usize,
}

#[derive(Default)]
struct Scan {
    mods: Vec<ModDecl>,
    references: Vec<(usize, Start, Target)>,
    macros: Vec<String>,
}

/// Reads one file: `mod` declarations, references that may leave the module, and
/// exported macros. Test items are blanked first; their `mod x;` files are test files.
fn scan(text: &str) -> Scan {
    let mut code = blank_comments_and_literals(text);
    let test_mods = blank_test_items(&mut code);
    let tokens = tokenize(&code);
    let line_of = |offset: usize| code[..offset].matches('\n').count() + 1;
    let mut out = Scan::default();
    for name in test_mods {
        out.mods.push(ModDecl {
            name,
            inline: Vec::new(),
            test: true,
        });
    }
    // Inline modules open: (name, the brace depth inside them).
    let mut inline: Vec<(String, isize)> = Vec::new();
    let mut depth: isize = 0;
    let mut i = 0;
    while i < tokens.len() {
        let token = tokens[i].1;
        let next = |k: usize| tokens.get(i + k).map_or("", |t| t.1);
        match token {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if inline.last().is_some_and(|(_, d)| *d > depth) {
                    inline.pop();
                }
            }
            "mod" if is_ident(next(1)) && next(2) == ";" => {
                let names = inline.iter().map(|(n, _)| n.clone()).collect();
                out.mods.push(ModDecl {
                    name: next(1).to_string(),
                    inline: names,
                    test: false,
                });
            }
            "mod" if is_ident(next(1)) && next(2) == "{" => {
                inline.push((next(1).to_string(), depth + 1));
            }
            "macro_rules" if next(1) == "!" && exported(&tokens[..i]) => {
                out.macros.push(next(2).to_string());
            }
            "crate" | "super"
                if next(1) == "::" && tokens[..i].last().is_none_or(|t| t.1 != "::") =>
            {
                let mut supers = 0;
                let mut k = i;
                while tokens.get(k).is_some_and(|t| t.1 == "super")
                    && tokens.get(k + 1).is_some_and(|t| t.1 == "::")
                {
                    supers += 1;
                    k += 2;
                }
                if token == "crate" {
                    k = i + 2;
                }
                let start = || Start {
                    supers,
                    inline: inline.len(),
                };
                for (at, target) in path_heads(&tokens[k..]) {
                    out.references.push((line_of(at), start(), target));
                }
                i = k;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Whether the `macro_rules!` whose preceding tokens these are is `#[macro_export]`.
fn exported(before: &[(usize, &str)]) -> bool {
    let tail: Vec<&str> = before.iter().rev().take(4).map(|t| t.1).collect();
    tail == ["]", "macro_export", "[", "#"]
}

/// The first segment of the path that starts at `tokens` (after `crate::`): one name,
/// or each name of a `{…}` group, with its offset.
fn path_heads(tokens: &[(usize, &str)]) -> Vec<(usize, Target)> {
    let head = |k: usize| -> Option<(usize, Target)> {
        let (at, name) = *tokens.get(k)?;
        if !is_ident(name) {
            return None;
        }
        let target = if tokens.get(k + 1).is_some_and(|t| t.1 == "!") {
            Target::Macro(name.to_string())
        } else {
            Target::Module(name.to_string())
        };
        Some((at, target))
    };
    if tokens.first().is_none_or(|t| t.1 != "{") {
        return head(0).into_iter().collect();
    }
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut expect_head = true;
    for (k, (_, token)) in tokens.iter().enumerate() {
        match *token {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            "," if depth == 1 => expect_head = true,
            _ if depth == 1 && expect_head => {
                expect_head = false;
                heads.extend(head(k));
            }
            _ => {}
        }
    }
    heads
}

fn is_ident(token: &str) -> bool {
    token
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Blanks every item under `#[cfg(test)]` (newlines kept) and returns the names of
/// the `mod x;` among them, whose files are test files.
fn blank_test_items(code: &mut String) -> Vec<String> {
    const ATTR: &str = "#[cfg(test)]";
    let mut test_mods = Vec::new();
    let mut from = 0;
    while let Some(found) = code[from..].find(ATTR) {
        let start = from + found;
        let bytes = code.as_bytes();
        let mut i = start + ATTR.len();
        let mut depth = 0i32;
        let end = loop {
            let Some(&c) = bytes.get(i) else {
                break bytes.len();
            };
            match c {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b';' if depth == 0 => break i + 1,
                b'{' if depth == 0 => break matching_brace(bytes, i) + 1,
                _ => {}
            }
            i += 1;
        };
        let item = code[start + ATTR.len()..end].to_string();
        let words = tokenize(&item);
        if let Some(pos) = words.iter().position(|t| t.1 == "mod")
            && words.get(pos + 2).is_some_and(|t| t.1 == ";")
        {
            test_mods.push(words[pos + 1].1.to_string());
        }
        let blank: String = code[start..end]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        code.replace_range(start..end, &blank);
        from = start + blank.len();
    }
    test_mods
}
