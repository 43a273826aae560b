//! An extension's exec binding: tools and evals, and the keys every extension shares
//! (how to start it, its environment rule, its limits).

use std::path::PathBuf;
use std::time::Duration;

use crate::doc::{Fields, Key, Node, Pos, UnknownKeys};

use crate::config::model::*;

use super::document::{Resolver, join_clean};

/// Tool keys that only describe the tool; the pack's definition is the one used.
const TOOL_KEYS_DESCRIPTIVE: &[&str] = &["name", "description"];

/// Tool keys PromptKit uses for tools it runs other than by exec.
const TOOL_KEYS_UNUSED: &[&str] = &[
    "input_schema",
    "output_schema",
    "mode",
    "timeout_ms",
    "mock_result",
    "mock_template",
    "mock_parts",
    "http",
    "client",
];

impl Resolver<'_> {
    pub(super) fn tool(&mut self, key: &Key, node: &Node) -> Option<ToolBinding> {
        let what = format!("spec.tools.{}", key.name);
        let mut f = self.cx.map(node, &what)?;
        let exec = f.get("exec");
        f.allow(TOOL_KEYS_DESCRIPTIVE);
        self.cx.ignored_keys(&mut f, TOOL_KEYS_UNUSED, &what);
        self.cx.unknown_keys(&f, &what, UnknownKeys::Error);
        let exec = match exec {
            Some(exec) => {
                let exec_what = format!("{what}.exec");
                let mut ef = self.cx.map(exec, &exec_what)?;
                let spec = self.exec_spec(&mut ef, exec.pos, &exec_what);
                self.cx.unknown_keys(&ef, &exec_what, UnknownKeys::Error);
                Some(spec?)
            }
            None => {
                self.cx.warning(
                    key.pos,
                    format!("{what} has no `exec` block; promptexec can only call exec tools"),
                );
                None
            }
        };
        Some(ToolBinding {
            name: key.name.clone(),
            exec,
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

    /// The keys every extension shares: how to start it.
    pub(super) fn exec_spec(
        &mut self,
        f: &mut Fields<'_>,
        pos: Pos,
        what: &str,
    ) -> Option<ExecSpec> {
        let command = match f.get("command") {
            Some(n) => self
                .cx
                .nonempty_string(n, &format!("{what}.command"))
                .map(|c| (c, n.pos)),
            None => {
                self.cx.error(pos, format!("{what}: missing key `command`"));
                None
            }
        };
        let (args, arg_positions) = self.exec_args(f.get("args"), what);
        let env = f
            .get("env")
            .and_then(|n| self.cx.string_list(n, &format!("{what}.env")))
            .unwrap_or_default();
        for (name, at) in &env {
            if !is_env_name(name) {
                self.cx.error(
                    *at,
                    format!("{what}.env: `{name}` is not a valid environment variable name (letters, digits and `_`, not starting with a digit)"),
                );
            }
        }
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
        let (command, command_pos) = command?;
        let command = self.command_path(&command, command_pos, what);
        Some(ExecSpec {
            command,
            args,
            arg_positions,
            env: env.into_iter().map(|(e, _)| e).collect(),
            timeout,
            working_dir,
            max_output_bytes,
            runtime,
            max_in_flight,
            command_pos,
            env_mode: env_mode.unwrap_or_default(),
        })
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
        let Some(n) = node else {
            return Some(self.base_dir.to_path_buf());
        };
        let dir = self
            .base_dir
            .join(self.cx.nonempty_string(n, &format!("{what}.working_dir"))?);
        if self.check_files && !dir.is_dir() {
            self.cx.error(
                n.pos,
                format!(
                    "{what}.working_dir: directory `{}` does not exist",
                    dir.display()
                ),
            );
        }
        Some(dir)
    }
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
        let a = config.tools["a"].exec.as_ref().expect("exec");
        assert_eq!(a.command, Path::new("/project/conf/bin/a"));
        assert_eq!(a.working_dir, Path::new("/project/conf/../data"));
        let b = config.tools["b"].exec.as_ref().expect("exec");
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
}
