//! Counters of the command side, exported on `/metrics`.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CommandLabels {
    pub aggregate: &'static str,
    pub outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct AggregateLabel {
    pub aggregate: &'static str,
}

/// Shared by every command framework of a process.
#[derive(Clone, Debug, Default)]
pub struct CommandMetrics {
    pub handled: Family<CommandLabels, Counter>,
    pub conflicts_retried: Family<AggregateLabel, Counter>,
}

impl CommandMetrics {
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "commands_handled",
            "Commands handled, by aggregate and outcome (ok, rejected, error)",
            self.handled.clone(),
        );
        registry.register(
            "command_conflicts_retried",
            "Optimistic-lock conflicts retried, by aggregate",
            self.conflicts_retried.clone(),
        );
    }

    pub fn handled(&self, aggregate: &'static str, outcome: &'static str) {
        self.handled
            .get_or_create(&CommandLabels { aggregate, outcome })
            .inc();
    }

    pub fn count(&self, aggregate: &'static str, outcome: &'static str) -> u64 {
        self.handled
            .get_or_create(&CommandLabels { aggregate, outcome })
            .get()
    }

    pub fn conflicts(&self, aggregate: &'static str) -> u64 {
        self.conflicts_retried
            .get_or_create(&AggregateLabel { aggregate })
            .get()
    }
}
