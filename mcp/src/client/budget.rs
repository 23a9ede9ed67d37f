//! A call budget that runs out after a set time but pauses while a person is being asked.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

/// A pausable countdown. Clones share the same pause state.
#[derive(Debug, Clone)]
pub struct Budget {
    total: Duration,
    paused: Arc<watch::Sender<usize>>,
}

/// Keeps the budget paused while it lives.
#[derive(Debug)]
pub struct PauseGuard(Arc<watch::Sender<usize>>);

impl Drop for PauseGuard {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

impl Budget {
    /// A budget of `total`.
    pub fn new(total: Duration) -> Self {
        Self {
            total,
            paused: Arc::new(watch::channel(0).0),
        }
    }

    /// The configured total.
    pub fn total(&self) -> Duration {
        self.total
    }

    /// Pauses the countdown until the guard is dropped (nesting allowed).
    pub fn pause(&self) -> PauseGuard {
        self.paused.send_modify(|n| *n += 1);
        PauseGuard(Arc::clone(&self.paused))
    }

    /// Completes when the running (unpaused) time reaches the total.
    pub async fn expired(&self) {
        let mut rx = self.paused.subscribe();
        let mut left = self.total;
        loop {
            if *rx.borrow_and_update() > 0 {
                if rx.changed().await.is_err() {
                    std::future::pending::<()>().await;
                }
                continue;
            }
            let started = Instant::now();
            tokio::select! {
                _ = tokio::time::sleep(left) => return,
                changed = rx.changed() => {
                    left = left.saturating_sub(started.elapsed());
                    if changed.is_err() {
                        tokio::time::sleep(left).await;
                        return;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn runs_out_without_pause() {
        let b = Budget::new(Duration::from_secs(10));
        let start = Instant::now();
        b.expired().await;
        assert_eq!(start.elapsed().as_secs(), 10);
    }

    #[tokio::test(start_paused = true)]
    async fn pause_extends_the_deadline_by_the_paused_time() {
        let b = Budget::new(Duration::from_secs(10));
        let start = Instant::now();
        let b2 = b.clone();
        let pauser = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(4)).await;
            let g = b2.pause();
            tokio::time::sleep(Duration::from_secs(30)).await;
            drop(g);
        });
        b.expired().await;
        assert_eq!(start.elapsed().as_secs(), 40);
        pauser.await.unwrap();
    }
}
