//! The command line that repeats a call, for a failure's report.

use std::path::Path;

use serde_json::Value;

/// The shell command that reproduces a call, single-quoted safely for sh:
/// `promptexec invoke-tool -c CONFIG [--pack PACK] TOOL --args 'JSON'`.
/// A path that is not UTF-8 is shown with replacement characters.
pub(crate) fn invoke_command(
    config: &Path,
    pack: Option<&Path>,
    tool: &str,
    args: &Value,
) -> String {
    let mut words = vec![
        "promptexec".to_owned(),
        "invoke-tool".to_owned(),
        "-c".to_owned(),
        quote(&config.to_string_lossy()),
    ];
    if let Some(pack) = pack {
        words.push("--pack".to_owned());
        words.push(quote(&pack.to_string_lossy()));
    }
    words.push(quote(tool));
    words.push("--args".to_owned());
    // Always quoted: JSON is full of characters the shell reads.
    words.push(single_quoted(&args.to_string()));
    words.join(" ")
}

/// `word` as is when the shell reads it unchanged, else single-quoted.
fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:@%+=,".contains(c));
    if plain {
        word.to_owned()
    } else {
        single_quoted(word)
    }
}

/// Inside single quotes sh reads every character literally; a quote itself closes the
/// quoting, is escaped, and reopens it.
fn single_quoted(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::process::Command;

    /// The words sh splits `command` into, `promptexec` itself stood in for by a
    /// function printing each argument NUL-terminated.
    fn words_sh_reads(command: &str) -> Vec<String> {
        let script = format!(
            "promptexec() {{ for word in \"$@\"; do printf '%s\\0' \"$word\"; done; }}; {command}"
        );
        let output = Command::new("sh")
            .arg("-c")
            .arg(&script)
            .output()
            .expect("sh runs");
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout)
            .expect("utf-8 back")
            .split_terminator('\0')
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn the_command_reaches_the_program_word_for_word() {
        let args = json!({
            "quote": "it's 'quoted'",
            "lines": "one\ntwo",
            "unicode": "ĉu 日本 😀 שלום e\u{301} a\u{200B}b",
            "shell": "$(rm -rf /) `x` \\ \"!\" *",
        });
        let config = Path::new("/tmp/my dir/it's.yaml");
        let pack = Path::new("packs/pack.json");
        let command = invoke_command(config, Some(pack), "weather", &args);
        assert_eq!(
            words_sh_reads(&command),
            [
                "invoke-tool",
                "-c",
                "/tmp/my dir/it's.yaml",
                "--pack",
                "packs/pack.json",
                "weather",
                "--args",
                &args.to_string(),
            ]
        );
        let back: Value = serde_json::from_str(&words_sh_reads(&command)[7]).expect("JSON");
        assert_eq!(back, args);
    }

    #[test]
    fn plain_words_stay_unquoted() {
        let command = invoke_command(
            Path::new("runtimeconfig.yaml"),
            None,
            "mcp__files__read",
            &json!({"path": "a"}),
        );
        assert_eq!(
            command,
            r#"promptexec invoke-tool -c runtimeconfig.yaml mcp__files__read --args '{"path":"a"}'"#
        );
        assert_eq!(words_sh_reads(&command)[3], "mcp__files__read");
    }
}
