//! The steps as a graph: cycles are refused, steps no path reaches are named, and a
//! binding may read only the outputs of steps that run on every path to its own.

use crate::doc::Pos;

use super::{Chain, Target};

/// A cycle: the steps on it in order (the first again at the end), and where the
/// `goto` that closes it is written.
pub(super) struct Cycle {
    pub steps: Vec<String>,
    pub pos: Pos,
}

/// Every cycle a depth-first walk from each step closes, each once.
pub(super) fn cycles(chain: &Chain) -> Vec<Cycle> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let n = chain.steps.len();
    let mut marks = vec![Mark::New; n];
    let mut found = Vec::new();
    for start in 0..n {
        if marks[start] != Mark::New {
            continue;
        }
        // Each frame: a step and the successors of it still to visit.
        let mut path: Vec<(usize, Vec<(Target, Pos)>)> = vec![(start, successors(chain, start))];
        marks[start] = Mark::Open;
        while let Some((at, next)) = path.last_mut() {
            let at = *at;
            let Some((target, pos)) = next.pop() else {
                marks[at] = Mark::Done;
                path.pop();
                continue;
            };
            let Target::Step(to) = target else { continue };
            match marks[to] {
                Mark::New => {
                    marks[to] = Mark::Open;
                    path.push((to, successors(chain, to)));
                }
                Mark::Open => {
                    let from = path.iter().position(|(s, _)| *s == to).unwrap_or(0);
                    let mut steps: Vec<String> = path[from..]
                        .iter()
                        .map(|(s, _)| chain.steps[*s].id.clone())
                        .collect();
                    steps.push(chain.steps[to].id.clone());
                    found.push(Cycle { steps, pos });
                }
                Mark::Done => {}
            }
        }
    }
    found
}

/// Successors in file order (popped from the end, so reversed here).
fn successors(chain: &Chain, index: usize) -> Vec<(Target, Pos)> {
    let mut next = chain.successors(index);
    next.reverse();
    next
}

/// Which steps can be reached from the first one.
pub(super) fn reachable(chain: &Chain) -> Vec<bool> {
    let mut seen = vec![false; chain.steps.len()];
    let mut todo = vec![0];
    while let Some(at) = todo.pop() {
        if seen.get(at).copied().unwrap_or(true) {
            continue;
        }
        seen[at] = true;
        for (target, _) in chain.successors(at) {
            if let Target::Step(to) = target {
                todo.push(to);
            }
        }
    }
    seen
}

/// For each reachable step, the steps that run before it on every path from the first
/// step (itself excluded); `None` for a step no path reaches. The graph has no cycle.
pub(super) fn always_before(chain: &Chain) -> Vec<Option<Vec<bool>>> {
    let n = chain.steps.len();
    let reach = reachable(chain);
    let order = topological(chain, &reach);
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &at in &order {
        for (target, _) in chain.successors(at) {
            if let Target::Step(to) = target {
                preds[to].push(at);
            }
        }
    }
    let mut before: Vec<Option<Vec<bool>>> = vec![None; n];
    for &at in &order {
        let mut set: Option<Vec<bool>> = None;
        for &p in &preds[at] {
            let Some(of_p) = &before[p] else { continue };
            let mut with_p = of_p.clone();
            with_p[p] = true;
            set = Some(match set {
                None => with_p,
                Some(s) => s.iter().zip(&with_p).map(|(a, b)| *a && *b).collect(),
            });
        }
        before[at] = Some(set.unwrap_or_else(|| vec![false; n]));
    }
    before
}

/// The reachable steps, each after every step that leads to it.
fn topological(chain: &Chain, reach: &[bool]) -> Vec<usize> {
    let n = chain.steps.len();
    let mut incoming = vec![0usize; n];
    for at in (0..n).filter(|&i| reach[i]) {
        for (target, _) in chain.successors(at) {
            if let Target::Step(to) = target {
                incoming[to] += 1;
            }
        }
    }
    let mut ready: Vec<usize> = (0..n).filter(|&i| reach[i] && incoming[i] == 0).collect();
    let mut order = Vec::new();
    while let Some(at) = ready.pop() {
        order.push(at);
        for (target, _) in chain.successors(at) {
            if let Target::Step(to) = target {
                incoming[to] -= 1;
                if incoming[to] == 0 {
                    ready.push(to);
                }
            }
        }
    }
    order
}
