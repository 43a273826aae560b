// TEMP STUB
use serde_json::Value;
pub struct Fuzzer;
#[derive(Debug)]
pub struct FuzzError;
pub struct Case {
    pub args: Value,
    pub valid: bool,
    pub broken: Option<String>,
}
impl Fuzzer {
    pub fn new(_s: &Value, _seed: u64) -> Result<Fuzzer, FuzzError> {
        Ok(Fuzzer)
    }
    pub fn example(&self) -> Value {
        serde_json::json!({})
    }
    pub fn next_case(&mut self) -> Case {
        Case {
            args: serde_json::json!({}),
            valid: true,
            broken: None,
        }
    }
}
impl Case {
    pub async fn shrink<F, Fut>(self, mut still_fails: F, _budget: usize) -> Value
    where
        F: FnMut(Value) -> Fut,
        Fut: std::future::Future<Output = bool>,
    {
        let _ = still_fails(self.args.clone()).await;
        self.args
    }
}
pub fn invoke_command(
    _c: &std::path::Path,
    _p: Option<&std::path::Path>,
    tool: &str,
    args: &Value,
) -> String {
    format!("promptexec invoke-tool {tool} --args '{args}'")
}
