//! The payments' background passes, each under its own lease so one
//! process runs it: the deposit sweeper (expiry, interrupted credits), the
//! transfer sweeper, and the sandbox provider's callback deliveries.

use std::sync::Arc;
use std::time::Duration;

use commands::platform::lease::run_leased;
use tokio::sync::watch;

use crate::app::AppState;

pub const SWEEP_LEASE: &str = "payments-sweep";
pub const SANDBOX_LEASE: &str = "payments-sandbox-callbacks";

pub fn spawn(state: &AppState, stop: watch::Receiver<bool>) -> Vec<tokio::task::JoinHandle<()>> {
    let sweeper = state.payments.clone();
    let sweep_lease = state.lease(SWEEP_LEASE);
    let sweep_stop = stop.clone();
    let sweep = tokio::spawn(async move {
        run_leased(sweep_lease, Duration::from_secs(5), sweep_stop, || {
            let p = sweeper.clone();
            async move {
                p.sweep_deposits().await?;
                p.sweep_payouts().await?;
                p.sweep_transfers().await
            }
        })
        .await
    });
    let mut tasks = vec![sweep];
    if state.config.demo_mode {
        let sandbox: Arc<commands::payments::Payments> = state.payments.clone();
        let lease = state.lease(SANDBOX_LEASE);
        tasks.push(tokio::spawn(async move {
            run_leased(lease, Duration::from_millis(300), stop, || {
                let p = sandbox.clone();
                async move { p.deliver_sandbox_callbacks().await }
            })
            .await
        }));
    }
    tasks
}
