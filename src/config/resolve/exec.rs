//! An extension's exec binding: tools and evals, and the keys every extension shares
//! (how to start it, its environment rule, its limits).

use std::path::PathBuf;
use std::time::Duration;

use indexmap::IndexMap;

use crate::doc::{Fields, Key, Node, Pos, UnknownKeys, Value};

use crate::config::model::*;

use super::document::{Resolver, join_clean};

mod tool_run;

use tool_run::{TOOL_RUN_KEYS, ToolWay, read_tool_run};

/// Tool keys that only describe the tool; the pack's definition is the one used.
const TOOL_KEYS_DESCRIPTIVE: &[&str] = &["name", "description"];

/// What `side_effects` may say of a tool.
const SIDE_EFFECTS: &[(&str, SideEffects)] =
    &[("none", SideEffects::None), ("writes", SideEffects::Writes)];

/// Tool keys PromptKit uses that promptexec does not act on.
const TOOL_KEYS_UNUSED: &[&str] = &["input_schema", "output_schema", "client"];

impl Resolver<'_> {
    pub(super) fn tool(&mut self, key: &Key, node: &Node) -> Option<ToolBinding> {
        let what = format!("spec.tools.{}", key.name);
        let mut f = self.cx.map(node, &what)?;
        f.allow(TOOL_KEYS_DESCRIPTIVE);
        f.allow(TOOL_RUN_KEYS);
        let side_effects = match f.get("side_effects") {
            Some(n) => self
                .cx
                .choice(n, &format!("{what}.side_effects"), SIDE_EFFECTS)?,
            None => SideEffects::Unstated,
        };
        self.cx.ignored_keys(&mut f, TOOL_KEYS_UNUSED, &what);
        self.cx.unknown_keys(&f, &what, UnknownKeys::Error);
        let run = match read_tool_run(self.cx, node, &what)? {
            ToolWay::Exec(exec) => {
                let exec_what = format!("{what}.exec");
                let mut ef = self.cx.map(exec, &exec_what)?;
                let spec = self.exec_spec(&mut ef, exec.pos, &exec_what);
                self.cx.unknown_keys(&ef, &exec_what, UnknownKeys::Error);
                ToolRun::Exec(spec?)
            }
            ToolWay::Run(ToolRun::Unbound) => {
                self.cx.warning(
                    key.pos,
                    format!("{what} says neither `exec`, `mode: mock` nor `mode: live`; promptexec cannot call it"),
                );
                ToolRun::Unbound
            }
            ToolWay::Run(run) => run,
        };
        Some(ToolBinding {
            name: key.name.clone(),
            run,
            side_effects,
            pos: key.pos,
        })
    }

    pub(super) fn eval(&mut self, key: &Key, node: &Node) -> Option<EvalBinding> {
        let what = format!("spec.evals.{}", key.name);
        let mut f = self.cx.map(node, &what)?;
        let exec = self.exec_spec(&mut f, node.pos, &what);
        self.cx.unknown_keys(&f, &what, UnknownKeys::Error);
        Some(EvalBinding {
            eval_type: key.name.clone(),
            exec: exec?,
            pos: key.pos,
        })
    }

    /// The keys every extension shares: how to start it. `env` lists names only.
    pub(super) fn exec_spec(
        &mut self,
        f: &mut Fields<'_>,
        pos: Pos,
        what: &str,
    ) -> Option<ExecSpec> {
        self.exec_spec_with(f, pos, what, false)
            .map(|(spec, _)| spec)
    }

    /// The same for a hook, whose `env` may also be a map of values to set (as a
    /// PicoClaw process hook writes it); those values come back beside the spec.
    pub(super) fn hook_exec_spec(
        &mut self,
        f: &mut Fields<'_>,
        pos: Pos,
        what: &str,
    ) -> Option<(ExecSpec, IndexMap<String, String>)> {
        self.exec_spec_with(f, pos, what, true)
    }

    fn exec_spec_with(
        &mut self,
        f: &mut Fields<'_>,
        pos: Pos,
        what: &str,
        env_values_allowed: bool,
    ) -> Option<(ExecSpec, IndexMap<String, String>)> {
        let args_node = f.get("args");
        let command = match f.get("command") {
            Some(n) => self.command_line(n, args_node, what),
            None => {
                self.cx.error(pos, format!("{what}: missing key `command`"));
                None
            }
        };
        let (env, env_values) = match f.get("env") {
            None => (Vec::new(), Some(IndexMap::new())),
            Some(n) if matches!(n.value, Value::Map(_)) && env_values_allowed => {
                (Vec::new(), self.env_values(n, &format!("{what}.env")))
            }
            Some(n) if matches!(n.value, Value::Map(_)) => {
                self.cx.error(
                    n.pos,
                    format!("{what}.env: values can be set for hooks and MCP servers only; here `env` lists the names of host variables to pass"),
                );
                (Vec::new(), None)
            }
            Some(n) => (
                self.env_names(n, &format!("{what}.env")),
                Some(IndexMap::new()),
            ),
        };
        let timeout = f
            .get("timeout_ms")
            .and_then(|n| self.cx.positive_integer(n, &format!("{what}.timeout_ms")))
            .map(Duration::from_millis);
        let max_output_bytes = f.get("max_output_bytes").and_then(|n| {
            self.cx
                .positive_integer(n, &format!("{what}.max_output_bytes"))
        });
        let max_in_flight = f.get("max_in_flight").and_then(|n| {
            self.cx
                .positive_integer(n, &format!("{what}.max_in_flight"))
        });
        let runtime = f
            .get("runtime")
            .and_then(|n| {
                self.cx
                    .choice(n, &format!("{what}.runtime"), RuntimeMode::WIRE)
            })
            .unwrap_or_default();
        let working_dir = self.working_dir(f.get("working_dir"), what)?;
        let env_mode = match f.get("env_mode") {
            Some(n) => self.env_mode(n, &format!("{what}.env_mode")),
            None => Some(self.env_mode),
        };
        // Runs the extension directly; a PromptKit sandbox does not apply here.
        self.cx.ignored_keys(f, &["sandbox"], what);
        let line = command?;
        let spec = ExecSpec {
            command: self.command_path(&line.program, line.program_pos, what),
            args: line.args,
            arg_positions: line.arg_positions,
            env,
            timeout,
            working_dir,
            max_output_bytes,
            runtime,
            max_in_flight,
            command_pos: line.program_pos,
            env_mode: env_mode.unwrap_or_default(),
        };
        Some((spec, env_values?))
    }

    /// `command` as one string (with `args` beside it), or as an argv list: the
    /// program, then its arguments (PicoClaw's form), with no `args` beside it.
    fn command_line(
        &mut self,
        node: &Node,
        args: Option<&Node>,
        what: &str,
    ) -> Option<CommandLine> {
        let Value::Seq(items) = &node.value else {
            let program = self.cx.nonempty_string(node, &format!("{what}.command"));
            let (args, arg_positions) = self.exec_args(args, what);
            return Some(CommandLine {
                program: program?,
                program_pos: node.pos,
                args,
                arg_positions,
            });
        };
        if let Some(args) = args {
            self.cx.error(
                args.pos,
                format!("{what}.args: `command` is a list that already holds the arguments; give them in one place"),
            );
        }
        let Some((first, rest)) = items.split_first() else {
            self.cx.error(
                node.pos,
                format!("{what}.command: an empty list; give the program, then its arguments"),
            );
            return None;
        };
        let program = self
            .cx
            .nonempty_string(first, &format!("{what}.command[0]"))?;
        let mut args = Vec::with_capacity(rest.len());
        for (i, item) in rest.iter().enumerate() {
            args.push(
                self.cx
                    .string(item, &format!("{what}.command[{}]", i + 1))?,
            );
        }
        Some(CommandLine {
            program,
            program_pos: first.pos,
            args,
            arg_positions: rest.iter().map(|item| item.pos).collect(),
        })
    }

    /// `env` as a list: the names of host variables passed through.
    fn env_names(&mut self, node: &Node, what: &str) -> Vec<String> {
        let names = self.cx.string_list(node, what).unwrap_or_default();
        for (name, at) in &names {
            if !is_env_name(name) {
                self.cx.error(*at, invalid_env_name(what, name));
            }
        }
        names.into_iter().map(|(name, _)| name).collect()
    }

    /// `env` as a map: variables set for the child, by name. Values may be secrets
    /// and are never shown.
    pub(super) fn env_values(
        &mut self,
        node: &Node,
        what: &str,
    ) -> Option<IndexMap<String, String>> {
        let Value::Map(entries) = &node.value else {
            self.cx.map(node, what);
            return None;
        };
        let mut env = IndexMap::new();
        for (key, value) in entries {
            if !is_env_name(&key.name) {
                self.cx.error(key.pos, invalid_env_name(what, &key.name));
                continue;
            }
            if let Some(text) = self.secret_text(value, &format!("{what}.{}", key.name)) {
                env.insert(key.name.clone(), text);
            }
        }
        Some(env)
    }

    pub(super) fn env_mode(&mut self, node: &Node, what: &str) -> Option<EnvMode> {
        self.cx.choice(node, what, EnvMode::WIRE)
    }

    /// A command as the child is started with it: a bare name stays one (it is looked
    /// up in `PATH`), a path is resolved against the config's directory.
    pub(super) fn command_path(&mut self, command: &str, pos: Pos, what: &str) -> PathBuf {
        if !command.contains('/') {
            return PathBuf::from(command);
        }
        let path = join_clean(self.base_dir, command);
        if self.check_files && !path.is_file() {
            self.cx.error(
                pos,
                format!(
                    "{what}.command: `{command}` does not exist (looked for `{}`)",
                    path.display()
                ),
            );
        }
        path
    }

    /// `args`, each with where it is written; none when absent.
    pub(super) fn exec_args(&mut self, node: Option<&Node>, what: &str) -> (Vec<String>, Vec<Pos>) {
        node.and_then(|n| self.cx.string_list(n, &format!("{what}.args")))
            .unwrap_or_default()
            .into_iter()
            .unzip()
    }

    /// The child's working directory: `working_dir` against the config's directory,
    /// else the config's directory itself. `None` when `working_dir` is not a path.
    pub(super) fn working_dir(&mut self, node: Option<&Node>, what: &str) -> Option<PathBuf> {
        match node {
            Some(n) => self.directory(n, &format!("{what}.working_dir")),
            None => Some(self.base_dir.to_path_buf()),
        }
    }

    /// A directory against the config's directory; `None` when it is not a path.
    pub(super) fn directory(&mut self, node: &Node, what: &str) -> Option<PathBuf> {
        let dir = self.base_dir.join(self.cx.nonempty_string(node, what)?);
        if self.check_files && !dir.is_dir() {
            self.cx.error(
                node.pos,
                format!("{what}: directory `{}` does not exist", dir.display()),
            );
        }
        Some(dir)
    }
}

/// How to start an extension: the program and its arguments, each with where it is
/// written.
struct CommandLine {
    program: String,
    program_pos: Pos,
    args: Vec<String>,
    arg_positions: Vec<Pos>,
}

fn invalid_env_name(what: &str, name: &str) -> String {
    format!(
        "{what}: `{name}` is not a valid environment variable name (letters, digits and `_`, not starting with a digit)"
    )
}

pub(super) fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::resolve::document::tests::resolve_text;
    use std::path::Path;

    #[test]
    fn paths_resolve_against_the_config_directory() {
        let (config, cx) = resolve_text(
            "spec:\n  tools:\n    a:\n      exec:\n        command: ./bin/a\n        working_dir: ../data\n    b:\n      exec:\n        command: python3\n        args: [./b.py]\n",
        );
        assert!(!cx.diagnostics.has_errors(), "{}", cx.diagnostics);
        let a = config.tools["a"].exec().expect("exec");
        assert_eq!(a.command, Path::new("/project/conf/bin/a"));
        assert_eq!(a.working_dir, Path::new("/project/conf/../data"));
        let b = config.tools["b"].exec().expect("exec");
        assert_eq!(
            b.command,
            Path::new("python3"),
            "bare names go through PATH"
        );
        assert_eq!(b.working_dir, Path::new("/project/conf"));
        assert_eq!(b.args, ["./b.py"]);
    }

    #[test]
    fn exec_settings_are_typed() {
        let (config, cx) = resolve_text(
            "spec:\n  evals:\n    tone:\n      command: ./tone\n      env: [API_KEY]\n      timeout_ms: 1500\n      max_output_bytes: 1024\n      runtime: server\n",
        );
        assert!(!cx.diagnostics.has_errors(), "{}", cx.diagnostics);
        let exec = &config.evals["tone"].exec;
        assert_eq!(exec.timeout, Some(Duration::from_millis(1500)));
        assert_eq!(exec.max_output_bytes, Some(1024));
        assert_eq!(exec.runtime, RuntimeMode::Server);
        assert_eq!(exec.env, ["API_KEY"]);
    }

    #[test]
    fn a_command_may_be_an_argv_list() {
        let (config, cx) = resolve_text(
            "spec:\n  tools:\n    a:\n      exec:\n        command: [python3, ./a.py, --fast]\n",
        );
        assert!(!cx.diagnostics.has_errors(), "{}", cx.diagnostics);
        let a = config.tools["a"].exec().expect("exec");
        assert_eq!(a.command, Path::new("python3"));
        assert_eq!(a.args, ["./a.py", "--fast"]);
        assert_eq!(a.arg_positions.len(), 2);
    }
}
