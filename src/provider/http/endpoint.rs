//! Which API a provider type speaks, and where it lives.

/// The provider types played over HTTP, for messages that list them.
pub const HTTP_TYPES: [&str; 4] = ["openai", "vllm", "ollama", "claude"];

/// Whether a provider type is one of [`HTTP_TYPES`].
pub fn plays(kind: &str) -> bool {
    HTTP_TYPES.contains(&kind)
}

/// The wire format of a model API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Api {
    /// OpenAI chat completions, which vLLM and Ollama also serve.
    OpenAi,
    /// Anthropic's Messages API.
    Claude,
}

/// What a provider type means over HTTP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Flavor {
    pub api: Api,
    pub default_base: &'static str,
    /// The variable a key is read from when the config names no credential and no
    /// `base_url`.
    pub default_key_env: Option<&'static str>,
}

/// The flavor of an HTTP provider type; `None` for any other type.
pub(super) fn flavor(kind: &str) -> Option<Flavor> {
    const OPENAI: &str = "https://api.openai.com/v1";
    let (api, default_base, default_key_env) = match kind {
        "openai" | "vllm" => (Api::OpenAi, OPENAI, Some("OPENAI_API_KEY")),
        "ollama" => (Api::OpenAi, "http://localhost:11434/v1", None),
        "claude" => (
            Api::Claude,
            "https://api.anthropic.com/v1",
            Some("ANTHROPIC_API_KEY"),
        ),
        _ => return None,
    };
    Some(Flavor {
        api,
        default_base,
        default_key_env,
    })
}

/// The URL a model call is posted to: the API root without its trailing slash, then
/// the API's path.
pub(super) fn call_url(api: Api, base: &str) -> String {
    let base = base.trim_end_matches('/');
    match api {
        Api::OpenAi => format!("{base}/chat/completions"),
        Api::Claude => format!("{base}/messages"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_has_its_api_and_root() {
        let openai = flavor("vllm").expect("vllm is played");
        assert_eq!(openai.api, Api::OpenAi);
        assert_eq!(
            call_url(openai.api, openai.default_base),
            "https://api.openai.com/v1/chat/completions"
        );
        let claude = flavor("claude").expect("claude is played");
        assert_eq!(
            call_url(claude.api, "http://proxy.test/v1/"),
            "http://proxy.test/v1/messages"
        );
        assert_eq!(flavor("ollama").map(|f| f.default_key_env), Some(None));
        assert!(flavor("mock").is_none());
        assert!(plays("ollama") && !plays("mock") && !plays("gemini"));
    }
}
