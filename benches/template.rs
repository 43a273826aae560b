//! Template parsing and rendering are linear in the template's size. Measured against a
//! baseline from the same run: the same pieces (text and values) concatenated into one
//! string, with no parsing at all. Shown for 100,000 and 200,000 placeholders, so the
//! growth can be read off (linear: twice the placeholders, about twice the time):
//! - `Template::parse` then `render`;
//! - a PromptPack holding that template loaded (every placeholder placed in the file)
//!   and its prompt rendered;
//! - the same text as a dotprompt template, each placeholder inside an `{{#if}}` block,
//!   parsed and rendered into messages.
//!
//! Run: `cargo bench --bench template` (BENCH_ROUNDS=N to change the round count).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use indexmap::IndexMap;
use promptexec::dotprompt::{NoPartials, RenderEnv};
use promptexec::template::Template;
use serde_json::json;

const NAMES: usize = 50;

fn name(i: usize) -> String {
    format!("v{}", i % NAMES)
}

/// `placeholders` placeholders between lines of text, some with escapes in the pack file.
fn pieces(placeholders: usize) -> Vec<(String, String)> {
    (0..placeholders)
        .map(|i| (format!("line {i} \"é\" "), name(i)))
        .collect()
}

fn template_text(pieces: &[(String, String)]) -> String {
    let mut text = String::new();
    for (literal, name) in pieces {
        text.push_str(literal);
        text.push_str("{{ ");
        text.push_str(name);
        text.push_str(" }}\n");
    }
    text
}

/// The same pieces as a dotprompt template: each placeholder inside an `{{#if}}`.
fn dotprompt_text(pieces: &[(String, String)]) -> String {
    let mut text = String::new();
    for (literal, name) in pieces {
        text.push_str(literal);
        text.push_str("{{#if on}}{{ ");
        text.push_str(name);
        text.push_str(" }}{{/if}}\n");
    }
    text
}

fn values() -> HashMap<String, String> {
    (0..NAMES)
        .map(|i| (name(i), format!("value {i}")))
        .collect()
}

/// What rendering must at least do: copy every piece into one string.
fn concatenate(pieces: &[(String, String)], values: &HashMap<String, String>) -> String {
    let mut out = String::new();
    for (literal, name) in pieces {
        out.push_str(literal);
        out.push_str(&values[name]);
        out.push('\n');
    }
    out
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time<T>(rounds: usize, mut work: impl FnMut() -> T) -> Duration {
    median(
        (0..rounds)
            .map(|_| {
                let started = Instant::now();
                std::hint::black_box(work());
                started.elapsed()
            })
            .collect(),
    )
}

fn main() {
    let rounds: usize = std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let dir = tempfile::tempdir().expect("bench dir");
    let values = values();
    let inputs: IndexMap<String, serde_json::Value> =
        values.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
    println!("template parse + render, {rounds} rounds (medians):");
    for placeholders in [100_000, 200_000] {
        let pieces = pieces(placeholders);
        let text = template_text(&pieces);
        let base = time(rounds, || concatenate(&pieces, &values));
        let rendered = time(rounds, || {
            let template = Template::parse(&text).expect("parses");
            template.render(&values).expect("renders")
        });
        assert_eq!(
            Template::parse(&text)
                .expect("parses")
                .render(&values)
                .expect("renders"),
            concatenate(&pieces, &values),
            "same text either way"
        );

        let pack_path = dir.path().join(format!("pack-{placeholders}.json"));
        let variables: Vec<_> = (0..NAMES)
            .map(|i| json!({"name": name(i), "type": "string", "required": true}))
            .collect();
        let pack = json!({
            "id": "bench", "name": "Bench", "version": "1",
            "prompts": {"p": {"id": "p", "name": "P", "version": "1",
                "system_template": text, "variables": variables}},
        });
        std::fs::write(&pack_path, pack.to_string()).expect("write the pack");
        let from_pack = time(rounds, || {
            let pack = promptexec::pack::load(&pack_path).expect("loads").value;
            let prompt = pack.prompts.get("p").expect("the prompt");
            promptexec::pack::render_prompt(&pack, prompt, &inputs).expect("renders")
        });

        let blocks = dotprompt_text(&pieces);
        let input = serde_json::Value::Object(
            inputs
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .chain([("on".to_string(), json!(true))])
                .collect(),
        );
        let env = RenderEnv {
            partials: &NoPartials,
            history: &[],
        };
        let dotprompt = time(rounds, || {
            let template = promptexec::dotprompt::Template::parse(&blocks).expect("parses");
            template.render(&input, &env).expect("renders")
        });
        let rendered_blocks = promptexec::dotprompt::Template::parse(&blocks)
            .expect("parses")
            .render(&input, &env)
            .expect("renders");
        assert_eq!(
            rendered_blocks.text(),
            concatenate(&pieces, &values),
            "same text either way"
        );

        let ratio = |d: Duration| d.as_secs_f64() / base.as_secs_f64();
        println!("{placeholders} placeholders:");
        println!("  concatenation (baseline)     {base:>10.2?}  1.00x");
        println!(
            "  parse + render               {rendered:>10.2?}  {:.1}x",
            ratio(rendered)
        );
        println!(
            "  pack load + render           {from_pack:>10.2?}  {:.1}x",
            ratio(from_pack)
        );
        println!(
            "  dotprompt, in #if blocks     {dotprompt:>10.2?}  {:.1}x",
            ratio(dotprompt)
        );
    }
}
