//! Decisions on `pending` tool calls: from flags, else from a person, else none.

use std::future::Future;
use std::pin::Pin;

/// A call waiting on a decision.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingCall {
    pub tool: String,
    pub call_id: String,
    pub args: serde_json::Value,
    pub message: String,
}

/// What was decided, by whom, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub approved: bool,
    pub by: String,
    pub note: String,
}

/// Which tools a flag covers: every tool, or the named ones.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolSet(Vec<String>);

impl ToolSet {
    /// From flag values, where `all` stands for every tool.
    pub fn new(names: impl IntoIterator<Item = String>) -> Self {
        Self(names.into_iter().collect())
    }

    fn covers(&self, tool: &str) -> bool {
        self.0.iter().any(|n| n == "all" || n == tool)
    }
}

/// Asks a person; `None` when no answer could be had.
pub type Asker = Box<dyn Fn(PendingCall) -> Pin<Box<dyn Future<Output = Option<Decision>>>>>;

/// How pending calls get decided in a run.
#[derive(Default)]
pub struct Approvals {
    /// Answers given in advance for the turn in progress (a scenario's
    /// `consent_overrides`), by tool; they come before flags and people.
    pub scripted: Vec<(String, Decision)>,
    pub approve: ToolSet,
    pub reject: ToolSet,
    pub ask: Option<Asker>,
}

impl Approvals {
    /// The flags' decision for `tool`, if they make one. Rejection wins when both
    /// cover it: a run never approves more than it was told to.
    pub fn by_flags(&self, tool: &str) -> Option<Decision> {
        if self.reject.covers(tool) {
            return Some(Decision {
                approved: false,
                by: "--reject".into(),
                note: "rejected on the command line".into(),
            });
        }
        self.approve.covers(tool).then(|| Decision {
            approved: true,
            by: "--approve".into(),
            note: "approved on the command line".into(),
        })
    }

    /// The scripted answer, else the flags' decision, else the person's, else none.
    pub async fn decide(&self, call: &PendingCall) -> Option<Decision> {
        if let Some((_, decision)) = self.scripted.iter().find(|(tool, _)| *tool == call.tool) {
            return Some(decision.clone());
        }
        if let Some(decision) = self.by_flags(&call.tool) {
            return Some(decision);
        }
        match &self.ask {
            Some(ask) => ask(call.clone()).await,
            None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(approve: &[&str], reject: &[&str]) -> Approvals {
        Approvals {
            scripted: Vec::new(),
            approve: ToolSet::new(approve.iter().map(|s| s.to_string())),
            reject: ToolSet::new(reject.iter().map(|s| s.to_string())),
            ask: None,
        }
    }

    #[test]
    fn flags_decide_by_tool_and_rejection_wins() {
        let approvals = flags(&["all"], &["refund_order"]);
        assert_eq!(
            approvals.by_flags("refund_order").map(|d| d.approved),
            Some(false)
        );
        assert_eq!(approvals.by_flags("lookup").map(|d| d.approved), Some(true));
        let some = flags(&["refund_order"], &[]);
        assert_eq!(some.by_flags("other"), None);
        assert_eq!(flags(&[], &[]).by_flags("x"), None);
    }

    #[tokio::test]
    async fn scripted_answers_come_before_the_flags() {
        let mut approvals = flags(&["all"], &[]);
        let deny = Decision {
            approved: false,
            by: "consent_overrides".into(),
            note: "denied".into(),
        };
        approvals.scripted = vec![("refund_order".into(), deny.clone())];
        let call = |tool: &str| PendingCall {
            tool: tool.into(),
            call_id: "c1".into(),
            args: serde_json::json!({}),
            message: String::new(),
        };
        assert_eq!(approvals.decide(&call("refund_order")).await, Some(deny));
        let other = approvals.decide(&call("lookup")).await;
        assert_eq!(other.map(|d| d.by), Some("--approve".to_string()));
    }
}
