//! The one environment rule for every child: a small base set (unless `env_mode:
//! listed` drops it), the names the config lists, and promptexec's own context
//! variables. Never the rest of the host's.

use crate::config::EnvMode;

/// Host variables every child gets when they are set, unless `env_mode` is `listed`.
pub const BASE_ENV: &[&str] = &["PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR"];

/// The child's environment. `host` looks a variable up in the host environment;
/// `listed` are the names from the config's `env`; `context` are `PROMPTEXEC_*` pairs.
pub fn child_env(
    host: impl Fn(&str) -> Option<String>,
    mode: EnvMode,
    listed: &[String],
    context: &[(String, String)],
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let base: &[&str] = match mode {
        EnvMode::Base => BASE_ENV,
        EnvMode::Listed => &[],
    };
    let names = base
        .iter()
        .copied()
        .chain(listed.iter().map(String::as_str));
    for name in names {
        if out.iter().any(|(n, _)| n == name) {
            continue;
        }
        match host(name) {
            Some(value) => out.push((name.to_string(), value)),
            None if listed.iter().any(|l| l == name) => {
                tracing::debug!("env: `{name}` is listed but not set on the host; skipped");
            }
            None => {}
        }
    }
    for (name, value) in context {
        out.retain(|(n, _)| n != name);
        out.push((name.clone(), value.clone()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(name: &str) -> Option<String> {
        match name {
            "PATH" => Some("/usr/bin".into()),
            "HOME" => Some("/home/u".into()),
            "API_KEY" => Some("listed-secret".into()),
            "OTHER_SECRET" => Some("unlisted".into()),
            _ => None,
        }
    }

    #[test]
    fn only_base_listed_and_context_variables_pass() {
        let env = child_env(
            host,
            EnvMode::Base,
            &["API_KEY".into(), "MISSING".into()],
            &[("PROMPTEXEC_NAME".into(), "weather".into())],
        );
        let names: Vec<&str> = env.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["PATH", "HOME", "API_KEY", "PROMPTEXEC_NAME"]);
    }

    #[test]
    fn listing_a_base_name_does_not_duplicate_it() {
        let env = child_env(host, EnvMode::Base, &["PATH".into()], &[]);
        assert_eq!(env.iter().filter(|(n, _)| n == "PATH").count(), 1);
    }

    #[test]
    fn listed_mode_gives_exactly_the_listed_names_and_the_context() {
        let env = child_env(
            host,
            EnvMode::Listed,
            &["API_KEY".into(), "MISSING".into()],
            &[("PROMPTEXEC_NAME".into(), "weather".into())],
        );
        let names: Vec<&str> = env.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["API_KEY", "PROMPTEXEC_NAME"]);
    }
}
