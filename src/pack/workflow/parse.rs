//! Reading a workflow from its document, with PromptKit's rules: a version of 1 or
//! 2, an entry that is a state, states whose `prompt_task` is a prompt, events that
//! lead to states and `on_max_visits` that names one. What PromptKit only warns
//! about is a warning here too: event names that are not PascalCase, a terminal
//! state with events, a redirect into a state that is capped itself, and (version 2)
//! a state with nowhere to go that does not say `terminal`. promptexec adds two
//! warnings of its own: a state the entry cannot reach, and a cycle no `max_visits`
//! or budget bounds.

use indexmap::IndexMap;

use crate::doc::{Checker, Node, Pos, UnknownKeys, Value, pointer as ptr, suggest};

use super::{Artifact, ArtifactMode, Budget, Orchestration, State, Workflow};

/// Keys of a state PromptKit defines that promptexec does not act on.
const STATE_KEYS_UNUSED: &[&str] = &["skills", "composition"];

/// Where each reference of a state is written, for the checks across states.
struct Places {
    targets: IndexMap<String, Pos>,
    on_max_visits: Pos,
}

/// Reads the workflow at `node` (`at` is its place for messages: `/workflow` in a
/// pack, `spec.workflow` in an Arena config). `prompts` are the prompt names a state
/// may speak with; `None` leaves `prompt_task` unchecked. Every problem goes to `cx`;
/// `None` when the workflow cannot be played.
pub(crate) fn parse(
    node: &Node,
    at: &str,
    prompts: Option<&[&str]>,
    cx: &mut Checker,
) -> Option<Workflow> {
    let errors_at_start = cx.diagnostics.error_count();
    let mut f = cx.map(node, at)?;
    let version = match f.get("version") {
        Some(v) => match cx.integer(v, &ptr(at, "version")) {
            Some(n @ (1 | 2)) => Some(n as u32),
            Some(n) => {
                cx.error(v.pos, format!("{at}/version: must be 1 or 2, found {n}"));
                None
            }
            None => None,
        },
        None => {
            cx.error(node.pos, format!("{at}: missing key `version`"));
            None
        }
    };
    let entry = match f.get("entry") {
        Some(e) => cx.nonempty_string(e, &ptr(at, "entry")).map(|s| (s, e.pos)),
        None => {
            cx.error(node.pos, format!("{at}: missing key `entry`"));
            None
        }
    };
    let budget = f.get("engine").map(|e| engine(e, &ptr(at, "engine"), cx));
    let (states, places) = match f.get("states") {
        Some(s) => states(s, &ptr(at, "states"), cx),
        None => {
            cx.error(node.pos, format!("{at}: missing key `states`"));
            (IndexMap::new(), Vec::new())
        }
    };
    cx.unknown_keys(&f, at, UnknownKeys::Error);
    let (entry, entry_pos) = entry?;
    let workflow = Workflow {
        version: version?,
        entry,
        states,
        budget: budget.unwrap_or_default(),
        pos: node.pos,
    };
    let ok = references(&workflow, entry_pos, &places, at, prompts, cx);
    if ok {
        warnings(&workflow, &places, at, cx);
    }
    let clean = cx.diagnostics.error_count() == errors_at_start;
    (clean && !workflow.states.is_empty()).then_some(workflow)
}

fn states(node: &Node, at: &str, cx: &mut Checker) -> (IndexMap<String, State>, Vec<Places>) {
    let mut out = IndexMap::new();
    let mut places = Vec::new();
    let Value::Map(entries) = &node.value else {
        cx.map(node, at);
        return (out, places);
    };
    if entries.is_empty() {
        cx.error(
            node.pos,
            format!("{at}: empty; a workflow needs at least one state"),
        );
    }
    for (key, value) in entries {
        if let Some((state, place)) = state(&key.name, value, &ptr(at, &key.name), cx) {
            out.insert(key.name.clone(), state);
            places.push(place);
        }
    }
    (out, places)
}

fn state(name: &str, node: &Node, at: &str, cx: &mut Checker) -> Option<(State, Places)> {
    let mut f = cx.map(node, at)?;
    let orchestration = match f.get("orchestration") {
        Some(o) => cx.choice(o, &ptr(at, "orchestration"), Orchestration::WIRE)?,
        None => Orchestration::Internal,
    };
    let (prompt_task, prompt_pos) = match f.get("prompt_task") {
        Some(p) => (cx.nonempty_string(p, &ptr(at, "prompt_task"))?, p.pos),
        None if orchestration == Orchestration::Composition => (String::new(), node.pos),
        None => {
            cx.error(node.pos, format!("{at}: missing key `prompt_task`"));
            return None;
        }
    };
    let description = f
        .get("description")
        .and_then(|d| cx.string(d, &ptr(at, "description")));
    let terminal = f
        .get("terminal")
        .and_then(|t| cx.boolean(t, &ptr(at, "terminal")))
        .unwrap_or(false);
    let mut on_event = IndexMap::new();
    let mut targets = IndexMap::new();
    match f.get("on_event") {
        Some(events) => {
            let events_at = ptr(at, "on_event");
            if cx.map(events, &events_at).is_some()
                && let Value::Map(entries) = &events.value
            {
                for (event, target) in entries {
                    if let Some(to) = cx.nonempty_string(target, &ptr(&events_at, &event.name)) {
                        on_event.insert(event.name.clone(), to);
                        targets.insert(event.name.clone(), target.pos);
                    }
                }
            }
        }
        None if !terminal => cx.error(
            node.pos,
            format!("{at}: missing key `on_event` (a state that is not `terminal: true` needs its events)"),
        ),
        None => {}
    }
    let max_visits = f.get("max_visits").and_then(|m| {
        cx.positive_integer(m, &ptr(at, "max_visits"))
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
    });
    let (on_max_visits, redirect_pos) = match f.get("on_max_visits") {
        Some(r) => (cx.nonempty_string(r, &ptr(at, "on_max_visits")), r.pos),
        None => (None, node.pos),
    };
    if let Some(p) = f.get("persistence") {
        cx.choice(
            p,
            &ptr(at, "persistence"),
            &[("transient", ()), ("persistent", ())],
        );
    }
    let artifacts = f
        .get("artifacts")
        .map(|a| artifacts(a, &ptr(at, "artifacts"), cx))
        .unwrap_or_default();
    if orchestration == Orchestration::Composition {
        cx.warning(
            node.pos,
            format!("{at}: `orchestration: composition` is not played by promptexec; a turn that enters this state stops there"),
        );
    }
    cx.ignored_keys(&mut f, STATE_KEYS_UNUSED, at);
    cx.unknown_keys(&f, at, UnknownKeys::Error);
    let state = State {
        name: name.to_string(),
        prompt_task,
        prompt_task_pos: prompt_pos,
        description,
        on_event,
        terminal,
        max_visits,
        on_max_visits,
        orchestration,
        artifacts,
        pos: node.pos,
    };
    let places = Places {
        targets,
        on_max_visits: redirect_pos,
    };
    Some((state, places))
}

/// A state's artifact slots: each a `type`, an optional `description` and `mode`.
fn artifacts(node: &Node, at: &str, cx: &mut Checker) -> IndexMap<String, Artifact> {
    let mut out = IndexMap::new();
    let Value::Map(entries) = &node.value else {
        cx.map(node, at);
        return out;
    };
    for (key, value) in entries {
        let slot_at = ptr(at, &key.name);
        let Some(mut f) = cx.map(value, &slot_at) else {
            continue;
        };
        let media_type = match f.get("type") {
            Some(t) => cx.nonempty_string(t, &ptr(&slot_at, "type")),
            None => {
                cx.error(value.pos, format!("{slot_at}: missing key `type`"));
                None
            }
        };
        let mode = match f.get("mode") {
            Some(m) => cx.choice(m, &ptr(&slot_at, "mode"), ArtifactMode::WIRE),
            None => Some(ArtifactMode::Replace),
        };
        if let Some(d) = f.get("description") {
            cx.string(d, &ptr(&slot_at, "description"));
        }
        cx.unknown_keys(&f, &slot_at, UnknownKeys::Error);
        if let (Some(media_type), Some(mode)) = (media_type, mode) {
            out.insert(key.name.clone(), Artifact { media_type, mode });
        }
    }
    out
}

/// `engine.budget`: the limits on the whole run. Other engine hints pass unread, as
/// PromptKit keeps them.
fn engine(node: &Node, at: &str, cx: &mut Checker) -> Budget {
    let mut budget = Budget::default();
    let Some(mut f) = cx.map(node, at) else {
        return budget;
    };
    let Some(b) = f.get("budget") else {
        return budget;
    };
    let at = ptr(at, "budget");
    let Some(mut limits) = cx.map(b, &at) else {
        return budget;
    };
    let mut limit = |key: &'static str| {
        limits
            .get(key)
            .and_then(|n| cx.non_negative_integer(n, &ptr(&at, key)))
            .filter(|n| *n > 0)
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
    };
    budget.max_total_visits = limit("max_total_visits");
    budget.max_tool_calls = limit("max_tool_calls");
    budget.max_wall_time_sec = limit("max_wall_time_sec");
    cx.unknown_keys(&limits, &at, UnknownKeys::Error);
    budget
}

/// The entry, every event's target and every redirect name a state; every
/// `prompt_task` names a prompt. False when one does not.
fn references(
    w: &Workflow,
    entry_pos: Pos,
    places: &[Places],
    at: &str,
    prompts: Option<&[&str]>,
    cx: &mut Checker,
) -> bool {
    let names = || w.states.keys().map(String::as_str);
    let mut ok = true;
    if !w.states.contains_key(&w.entry) && !w.states.is_empty() {
        let hint = suggest(&w.entry, names());
        cx.error(
            entry_pos,
            format!(
                "{at}/entry: `{}` is not a state of the workflow{hint}",
                w.entry
            ),
        );
        ok = false;
    }
    for (state, place) in w.states.values().zip(places) {
        let state_at = ptr(&ptr(at, "states"), &state.name);
        for (event, target) in &state.on_event {
            if !w.states.contains_key(target) {
                let hint = suggest(target, names());
                cx.error(
                    place.targets.get(event).copied().unwrap_or(state.pos),
                    format!("{state_at}/on_event/{event}: `{target}` is not a state of the workflow{hint}"),
                );
                ok = false;
            }
        }
        if let Some(redirect) = &state.on_max_visits
            && !w.states.contains_key(redirect)
        {
            let hint = suggest(redirect, names());
            cx.error(
                place.on_max_visits,
                format!(
                    "{state_at}/on_max_visits: `{redirect}` is not a state of the workflow{hint}"
                ),
            );
            ok = false;
        }
    }
    if let Some(prompts) = prompts {
        ok &= check_prompts(w, at, prompts, cx);
    }
    ok
}

/// Every state's `prompt_task` is one of `prompts` (a composition state has none);
/// each that is not is an error at its place.
fn check_prompts(w: &Workflow, at: &str, prompts: &[&str], cx: &mut Checker) -> bool {
    let mut ok = true;
    for state in w.states.values() {
        if state.orchestration == Orchestration::Composition
            || prompts.contains(&state.prompt_task.as_str())
        {
            continue;
        }
        let hint = suggest(&state.prompt_task, prompts.iter().copied());
        cx.error(
            state.prompt_task_pos,
            format!(
                "{}/prompt_task: `{}` is not a prompt{hint}",
                ptr(&ptr(at, "states"), &state.name),
                state.prompt_task
            ),
        );
        ok = false;
    }
    ok
}

/// What PromptKit (and promptexec) only warns about, once every reference holds.
fn warnings(w: &Workflow, places: &[Places], at: &str, cx: &mut Checker) {
    for (state, place) in w.states.values().zip(places) {
        let state_at = ptr(&ptr(at, "states"), &state.name);
        for event in state.on_event.keys() {
            if !is_pascal_case(event) {
                let pos = place.targets.get(event).copied().unwrap_or(state.pos);
                cx.warning(
                    pos,
                    format!("{state_at}/on_event: event `{event}` should be PascalCase"),
                );
            }
        }
        if state.terminal && !state.on_event.is_empty() {
            cx.warning(
                state.pos,
                format!("{state_at}: a terminal state's events never fire"),
            );
        }
        if let Some(redirect) = &state.on_max_visits
            && w.states[redirect].max_visits.is_some()
        {
            cx.warning(
                place.on_max_visits,
                format!("{state_at}/on_max_visits: `{redirect}` has a `max_visits` of its own; redirects may chain"),
            );
        }
        if w.version >= 2
            && !state.terminal
            && state.on_event.is_empty()
            && state.max_visits.is_none()
        {
            cx.warning(
                state.pos,
                format!("{state_at}: no event leaves this state; mark it `terminal: true`"),
            );
        }
    }
    for name in unreachable(w) {
        cx.warning(
            w.states[name].pos,
            format!(
                "{}: the entry `{}` cannot reach this state",
                ptr(&ptr(at, "states"), name),
                w.entry
            ),
        );
    }
    if w.budget.max_total_visits.is_none() {
        for (from, to) in unguarded_cycles(w) {
            cx.warning(
                w.states[from].pos,
                format!("{}: `{from}` → `{to}` closes a cycle that no `max_visits` or `engine.budget.max_total_visits` bounds", ptr(&ptr(at, "states"), from)),
            );
        }
    }
}

/// `^[A-Z][a-zA-Z0-9]*$`, as PromptKit checks event names.
fn is_pascal_case(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase()) && chars.all(|c| c.is_ascii_alphanumeric())
}

/// The states the entry cannot reach by events or redirects, in file order.
fn unreachable(w: &Workflow) -> Vec<&str> {
    let mut seen = vec![w.entry.as_str()];
    let mut next = 0;
    while let Some(name) = seen.get(next).copied() {
        next += 1;
        let Some(state) = w.states.get(name) else {
            continue;
        };
        let leads = state.on_event.values().chain(state.on_max_visits.iter());
        for to in leads {
            if !seen.contains(&to.as_str()) {
                seen.push(to);
            }
        }
    }
    w.states
        .keys()
        .map(String::as_str)
        .filter(|name| !seen.contains(name))
        .collect()
}

/// Each edge that closes a cycle (found depth first, in file order) when no state on
/// the cycle has `max_visits`.
fn unguarded_cycles(w: &Workflow) -> Vec<(&str, &str)> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnPath,
        Done,
    }
    fn visit<'w>(
        w: &'w Workflow,
        name: &'w str,
        marks: &mut IndexMap<&'w str, Mark>,
        path: &mut Vec<&'w str>,
        out: &mut Vec<(&'w str, &'w str)>,
    ) {
        marks.insert(name, Mark::OnPath);
        path.push(name);
        for to in w.states[name].on_event.values() {
            match marks.get(to.as_str()).copied().unwrap_or(Mark::New) {
                Mark::OnPath => {
                    let start = path.iter().position(|s| *s == to).unwrap_or(0);
                    let guarded = path[start..]
                        .iter()
                        .any(|s| w.states[*s].max_visits.is_some());
                    if !guarded {
                        out.push((name, to));
                    }
                }
                Mark::New if w.states.contains_key(to) => visit(w, to, marks, path, out),
                _ => {}
            }
        }
        path.pop();
        marks.insert(name, Mark::Done);
    }
    let mut marks: IndexMap<&str, Mark> = IndexMap::new();
    let mut out = Vec::new();
    for name in w.states.keys() {
        if marks.get(name.as_str()).copied().unwrap_or(Mark::New) == Mark::New {
            visit(w, name, &mut marks, &mut Vec::new(), &mut out);
        }
    }
    out
}
