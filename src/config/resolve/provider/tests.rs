//! Reading `spec.providers`: every key, its checks and its messages.

use std::path::Path;
use std::time::Duration;

use super::*;
use crate::config::resolve::document::tests::resolve_text;
use crate::doc::Checker;

const FILE: &str = "/project/conf/runtimeconfig.yaml";

/// The config's providers list, written under `spec.providers`: its first line is
/// line 5 of the file, its columns 4 further right.
fn providers(yaml: &str) -> (RuntimeConfig, Checker) {
    let indented: String = yaml.lines().map(|l| format!("    {l}\n")).collect();
    resolve_text(&format!("spec:\n  providers:\n{indented}"))
}

fn lines(cx: &Checker) -> Vec<String> {
    cx.diagnostics.iter().map(ToString::to_string).collect()
}

#[test]
fn every_field_of_a_provider_is_read_and_typed() {
    let (config, cx) = providers(
        "- id: gpt\n  type: openai\n  model: gpt-4o-mini\n  role: llm\n  base_url: https://api.example.com/v1/\n  headers:\n    OpenAI-Organization: org-1\n    X-Trace: \"on\"\n  credential:\n    credential_env: OPENAI_API_KEY\n  defaults:\n    temperature: 0.7\n    top_p: 1\n    max_tokens: 512\n  pricing:\n    input_cost_per_1k: 0.00015\n    output_cost_per_1k: 0\n  request_timeout: 1m30s\n  stream_idle_timeout: 500ms\n  rate_limit: {rps: 5, burst: 10}\n",
    );
    assert!(cx.diagnostics.iter().next().is_none(), "{}", cx.diagnostics);
    let p = &config.providers[0];
    assert_eq!(p.name(), "gpt");
    assert_eq!(p.kind, "openai");
    assert_eq!(p.model.as_deref(), Some("gpt-4o-mini"));
    assert_eq!(
        p.base_url.as_deref(),
        Some("https://api.example.com/v1"),
        "kept without its trailing slash"
    );
    let headers: Vec<_> = p
        .headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        headers,
        [("OpenAI-Organization", "org-1"), ("X-Trace", "on")]
    );
    assert_eq!(p.credential, Some(Credential::Env("OPENAI_API_KEY".into())));
    assert_eq!(
        p.defaults,
        ModelDefaults {
            temperature: Some(0.7),
            top_p: Some(1.0),
            max_tokens: Some(512)
        }
    );
    assert_eq!(
        p.pricing,
        Some(Pricing {
            input_per_1k: 0.00015,
            output_per_1k: 0.0
        })
    );
    assert_eq!(p.request_timeout, Some(Duration::from_secs(90)));
    assert_eq!(p.stream_idle_timeout, Some(Duration::from_millis(500)));
    assert_eq!(p.rate_limit, Some(RateLimit { rps: 5, burst: 10 }));
    assert_eq!(p.pos, Pos { line: 5, col: 7 });
}

#[test]
fn a_provider_with_only_a_type_takes_every_default() {
    let (config, cx) = providers("- type: gemini\n");
    assert!(!cx.diagnostics.has_errors(), "{}", cx.diagnostics);
    let p = &config.providers[0];
    assert_eq!(
        p.name(),
        "gemini",
        "a type promptexec does not play still loads"
    );
    assert_eq!(p.base_url, None);
    assert!(p.headers.is_empty());
    assert_eq!(p.credential, None);
    assert_eq!(p.defaults, ModelDefaults::default());
    assert_eq!((p.pricing, p.rate_limit), (None, None));
    assert_eq!((p.request_timeout, p.stream_idle_timeout), (None, None));
}

#[test]
fn a_base_url_must_be_http_or_https() {
    let (config, cx) = providers(
        "- {id: a, type: openai, base_url: ftp://example.com/v1}\n- {id: b, type: openai, base_url: localhost:11434}\n- {id: c, type: openai, base_url: \"http://\"}\n- {id: d, type: ollama, base_url: \"http://localhost:11434/v1\"}\n",
    );
    assert_eq!(
        lines(&cx),
        [
            format!(
                "{FILE}:5:39: spec.providers[0].base_url: expected an `http://` or `https://` URL, found `ftp://example.com/v1`"
            ),
            format!(
                "{FILE}:6:39: spec.providers[1].base_url: expected an `http://` or `https://` URL, found `localhost:11434`"
            ),
            format!(
                "{FILE}:7:39: spec.providers[2].base_url: expected an `http://` or `https://` URL, found `http://`"
            ),
        ]
    );
    assert_eq!(
        config.providers[3].base_url.as_deref(),
        Some("http://localhost:11434/v1")
    );
}

#[test]
fn a_base_url_with_a_password_is_refused_without_showing_it() {
    let (_, cx) =
        providers("- {id: a, type: openai, base_url: \"http://me:hunter2@example.com/v1\"}\n");
    let lines = lines(&cx);
    assert_eq!(
        lines,
        [format!(
            "{FILE}:5:39: spec.providers[0].base_url: a user or password in the URL is not accepted (URLs are shown in logs and errors); give the key with `credential` or `headers`"
        )]
    );
}

#[test]
fn headers_are_a_map_of_strings_whose_values_are_never_shown() {
    let (_, cx) = providers(
        "- type: openai\n  headers:\n    Authorization: 12345\n    \"bad name\": x\n    X-A: a\n    x-a: b\n- type: claude\n  headers: [a]\n",
    );
    assert_eq!(
        lines(&cx),
        [
            format!(
                "{FILE}:7:24: spec.providers[0].headers.Authorization: expected a string, found an integer"
            ),
            format!(
                "{FILE}:8:9: spec.providers[0].headers: `bad name` is not a valid header name (letters, digits and `!#$%&'*+-.^_`|~`)"
            ),
            format!(
                "{FILE}:10:9: spec.providers[0].headers.x-a: given twice (header names ignore case)"
            ),
            format!("{FILE}:12:16: spec.providers[1].headers: expected a mapping, found a list"),
        ]
    );
}

#[test]
fn a_credential_names_exactly_one_source() {
    let (_, cx) = providers(
        "- id: none\n  type: openai\n  credential: {}\n- id: two\n  type: openai\n  credential:\n    credential_env: KEY\n    credential_file: key.txt\n- id: typo\n  type: openai\n  credential:\n    credentail_env: KEY\n- id: bad_env\n  type: openai\n  credential: {credential_env: 1KEY}\n",
    );
    assert_eq!(
        lines(&cx),
        [
            format!(
                "{FILE}:7:19: spec.providers[0].credential: expected one of `api_key`, `credential_env` or `credential_file`"
            ),
            format!(
                "{FILE}:12:9: spec.providers[1].credential: both `credential_env` and `credential_file` are given; keep one of `api_key`, `credential_env` or `credential_file`"
            ),
            format!(
                "{FILE}:16:9: unknown key `credentail_env` in spec.providers[2].credential; did you mean `credential_env`?"
            ),
            format!(
                "{FILE}:16:9: spec.providers[2].credential: expected one of `api_key`, `credential_env` or `credential_file`"
            ),
            format!(
                "{FILE}:19:36: spec.providers[3].credential.credential_env: `1KEY` is not a valid environment variable name (letters, digits and `_`, not starting with a digit)"
            ),
        ]
    );
}

#[test]
fn a_key_in_the_file_is_used_with_a_warning_that_does_not_repeat_it() {
    let (config, cx) = providers(
        "- type: openai\n  credential:\n    api_key: sk-test-0123456789\n- id: b\n  type: openai\n  credential: {api_key: 42}\n",
    );
    assert_eq!(
        config.providers[0].credential,
        Some(Credential::Key("sk-test-0123456789".into()))
    );
    let shown = lines(&cx);
    assert_eq!(
        shown,
        [
            format!(
                "{FILE}:7:9: warning: spec.providers[0].credential.api_key: a key written in the config travels wherever the file does; name an environment variable with `credential_env` instead"
            ),
            format!(
                "{FILE}:10:29: spec.providers[1].credential.api_key: expected a string, found an integer"
            ),
        ]
    );
    let debug = format!("{:?}", config.providers[0]);
    assert!(!debug.contains("sk-test"), "{debug}");
}

#[test]
fn a_credential_file_is_found_from_the_config_directory() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("key.txt"), "sk-x\n").expect("written");
    let text = "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  providers:\n    - id: here\n      type: openai\n      credential: {credential_file: ./key.txt}\n    - id: gone\n      type: openai\n      credential: {credential_file: ../gone.txt}\n";
    let path = dir.path().join("c.yaml");
    let root = crate::doc::parse_yaml(&path, text).expect("valid yaml");
    let mut cx = Checker::new(&path, text);
    let config = super::super::document::resolve(&root, dir.path(), true, &mut cx);
    assert_eq!(
        config.providers[0].credential,
        Some(Credential::File(dir.path().join("key.txt")))
    );
    let gone = dir.path().join("../gone.txt");
    assert_eq!(
        lines(&cx),
        [format!(
            "{}:10:37: spec.providers[1].credential.credential_file: file `{}` does not exist",
            path.display(),
            gone.display()
        )]
    );
}

#[test]
fn defaults_are_checked_against_their_ranges() {
    let (config, cx) = providers(
        "- id: a\n  type: openai\n  defaults: {temperature: 2.5, top_p: -0.1, max_tokens: 0, prompt_caching: true}\n- id: b\n  type: openai\n  defaults: {temperature: 2, top_p: 0, tempreature: 1}\n",
    );
    assert_eq!(
        lines(&cx),
        [
            format!(
                "{FILE}:7:31: spec.providers[0].defaults.temperature: expected a number from 0 to 2, found 2.5"
            ),
            format!(
                "{FILE}:7:43: spec.providers[0].defaults.top_p: expected a number from 0 to 1, found -0.1"
            ),
            format!(
                "{FILE}:7:61: spec.providers[0].defaults.max_tokens: expected a positive integer, found 0"
            ),
            format!(
                "{FILE}:7:64: warning: `prompt_caching` in spec.providers[0].defaults is a PromptKit key promptexec does not apply; it is ignored"
            ),
            format!(
                "{FILE}:10:44: unknown key `tempreature` in spec.providers[1].defaults; did you mean `temperature`?"
            ),
        ]
    );
    assert_eq!(config.providers[1].defaults.temperature, Some(2.0));
    assert_eq!(config.providers[1].defaults.top_p, Some(0.0));
}

#[test]
fn pricing_and_rate_limit_need_both_their_keys() {
    let (config, cx) = providers(
        "- id: a\n  type: openai\n  pricing: {input_cost_per_1k: 0.5}\n  rate_limit: {rps: 0, burst: 2}\n- id: b\n  type: openai\n  pricing: {input_cost_per_1k: -1, output_cost_per_1k: 1}\n  rate_limit: {burst: 2}\n- id: c\n  type: openai\n  pricing: {input_cost_per_1k: 1, output_cost_per_1k: 2}\n  rate_limit: {rps: 1, burst: 5000000000}\n",
    );
    assert_eq!(
        lines(&cx),
        [
            format!("{FILE}:7:16: spec.providers[0].pricing: missing key `output_cost_per_1k`"),
            format!(
                "{FILE}:8:25: spec.providers[0].rate_limit.rps: expected a positive integer, found 0"
            ),
            format!(
                "{FILE}:11:36: spec.providers[1].pricing.input_cost_per_1k: expected a non-negative number, found -1"
            ),
            format!("{FILE}:12:19: spec.providers[1].rate_limit: missing key `rps`"),
            format!(
                "{FILE}:16:35: spec.providers[2].rate_limit.burst: 5000000000 is too large (at most 4294967295)"
            ),
        ]
    );
    assert_eq!(
        config.providers[2].pricing,
        Some(Pricing {
            input_per_1k: 1.0,
            output_per_1k: 2.0
        })
    );
    assert_eq!(config.providers[0].pricing, None);
}

#[test]
fn timeouts_are_durations_more_than_zero() {
    let (config, cx) = providers(
        "- id: a\n  type: openai\n  request_timeout: 0s\n  stream_idle_timeout: 30\n- id: b\n  type: openai\n  request_timeout: soon\n  stream_idle_timeout: 2m\n",
    );
    let shown = lines(&cx);
    assert_eq!(shown.len(), 3, "{shown:#?}");
    assert_eq!(
        shown[0],
        format!("{FILE}:7:24: spec.providers[0].request_timeout: must be more than zero")
    );
    assert_eq!(
        shown[1],
        format!(
            "{FILE}:8:28: spec.providers[0].stream_idle_timeout: expected a duration such as `30s`, `1m30s` or `500ms`, found 30"
        )
    );
    assert_eq!(
        shown[2],
        format!(
            "{FILE}:11:24: spec.providers[1].request_timeout: expected a duration such as `30s`, `1m30s` or `500ms`, found `soon`"
        )
    );
    assert_eq!(
        config.providers[1].stream_idle_timeout,
        Some(Duration::from_secs(120))
    );
}

#[test]
fn keys_promptexec_does_not_use_are_warnings_and_misspelt_ones_errors() {
    let (config, cx) = providers(
        "- type: openai\n  role: tts\n  voice: alloy\n  include_raw_output: true\n  http_transport: {}\n  base_ulr: http://x\n- type: mock\n  role: llm\n",
    );
    assert_eq!(
        lines(&cx),
        [
            format!(
                "{FILE}:6:13: warning: spec.providers[0].role: `tts` is not a role promptexec plays (it plays `llm`); the role is ignored"
            ),
            format!(
                "{FILE}:7:7: warning: `voice` in spec.providers[0] is a PromptKit key promptexec does not apply; it is ignored"
            ),
            format!(
                "{FILE}:9:7: warning: `http_transport` in spec.providers[0] is a PromptKit key promptexec does not apply; it is ignored"
            ),
            format!(
                "{FILE}:8:7: warning: `include_raw_output` in spec.providers[0] is a PromptKit key promptexec does not apply; it is ignored"
            ),
            format!(
                "{FILE}:10:7: unknown key `base_ulr` in spec.providers[0]; did you mean `base_url`?"
            ),
        ]
    );
    assert_eq!(config.providers.len(), 2);
}

#[test]
fn two_providers_with_one_name_point_at_the_first() {
    let (config, cx) = providers(
        "- type: mock\n- id: fast\n  type: openai\n- id: mock\n  type: openai\n- type: openai\n  id: fast\n",
    );
    assert_eq!(
        lines(&cx),
        [
            format!(
                "{FILE}:8:11: spec.providers[2]: a provider named `mock` is already declared at line 5; give each its own `id`"
            ),
            format!(
                "{FILE}:11:11: spec.providers[3]: a provider named `fast` is already declared at line 6; give each its own `id`"
            ),
        ]
    );
    let names: Vec<&str> = config.providers.iter().map(Provider::name).collect();
    assert_eq!(names, ["mock", "fast"]);
}

#[test]
fn the_mock_file_is_found_from_the_config_directory() {
    let (config, cx) = providers(
        "- type: mock\n  additional_config:\n    mock_config: ./mocks/responses.yaml\n    other: kept\n",
    );
    assert!(cx.diagnostics.iter().next().is_none(), "{}", cx.diagnostics);
    assert_eq!(
        config.providers[0].mock_config.as_deref(),
        Some(Path::new("/project/conf/mocks/responses.yaml"))
    );
}

#[test]
fn a_replay_provider_names_its_recording_from_the_config_directory() {
    let (config, cx) = providers(
        "- id: geo\n  type: replay\n  model: recorded-session\n  additional_config:\n    recording: ../recordings/geo.recording.json\n    timing: instant\n    match: content\n    metadata: {judge: none}\n- id: plain\n  type: replay\n  additional_config: {recording: a.json}\n",
    );
    assert!(cx.diagnostics.iter().next().is_none(), "{}", cx.diagnostics);
    let geo = &config.providers[0];
    assert_eq!(
        geo.recording,
        Some((
            Path::new("/project/conf/../recordings/geo.recording.json").to_path_buf(),
            Pos { line: 9, col: 20 }
        ))
    );
    assert!(geo.match_content);
    let plain = &config.providers[1];
    assert_eq!(
        plain.recording.as_ref().map(|(path, _)| path.as_path()),
        Some(Path::new("/project/conf/a.json"))
    );
    assert!(!plain.match_content, "by turn unless told");
}

#[test]
fn a_replay_provider_without_a_recording_is_refused_and_the_rest_warned_about() {
    let (config, cx) = providers(
        "- id: a\n  type: replay\n- id: b\n  type: replay\n  additional_config: {recordng: x.json}\n- id: c\n  type: replay\n  additional_config: {arena_output: out.json}\n- id: d\n  type: replay\n  additional_config: {recording: d.json, arena_output: out.json, match: contnt, timing: realtime}\n- id: e\n  type: replay\n  additional_config: {recording: e.json, timing: slow}\n- id: f\n  type: openai\n  additional_config: {recording: f.json}\n",
    );
    assert_eq!(
        lines(&cx),
        [
            format!(
                "{FILE}:5:7: spec.providers[0].additional_config: a `replay` provider needs `recording`, the session recording it answers from"
            ),
            format!(
                "{FILE}:9:26: spec.providers[1].additional_config: a `replay` provider needs `recording`, the session recording it answers from; did you mean `recordng`?"
            ),
            format!(
                "{FILE}:12:27: spec.providers[2].additional_config: a `replay` provider needs `recording`, the session recording it answers from; `arena_output` (a replay of an Arena run's output) is not read by promptexec"
            ),
            format!(
                "{FILE}:15:46: warning: spec.providers[3].additional_config.arena_output: a replay of an Arena run's output is not read by promptexec; it replays `recording`"
            ),
            format!(
                "{FILE}:15:77: warning: spec.providers[3].additional_config.match: `contnt` is not a match mode (`turn` or `content`); calls are matched by turn, as PromptKit does; did you mean `content`?"
            ),
            format!(
                "{FILE}:15:93: warning: spec.providers[3].additional_config.timing: `realtime` is not applied; promptexec answers replayed calls at once"
            ),
            format!(
                "{FILE}:18:54: warning: spec.providers[4].additional_config.timing: `slow` is not a timing mode (`instant`, `realtime` or `accelerated`); promptexec answers replayed calls at once"
            ),
        ]
    );
    assert!(!config.providers[3].match_content);
    assert_eq!(
        config.providers[5].recording, None,
        "`recording` is a replay provider's key"
    );
}

#[test]
fn a_replay_recording_that_does_not_exist_is_found_when_files_are_checked() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("here.json"), "{}").expect("written");
    let text = "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  providers:\n    - id: here\n      type: replay\n      additional_config: {recording: here.json}\n    - id: gone\n      type: replay\n      additional_config: {recording: gone.json}\n";
    let path = dir.path().join("c.yaml");
    let root = crate::doc::parse_yaml(&path, text).expect("valid yaml");
    let mut cx = Checker::new(&path, text);
    super::super::document::resolve(&root, dir.path(), true, &mut cx);
    assert_eq!(
        lines(&cx),
        [format!(
            "{}:10:38: spec.providers[1].additional_config.recording: file `{}` does not exist",
            path.display(),
            dir.path().join("gone.json").display()
        )]
    );
}
