//! The service's event bus: a bounded ring of recent events with run-scoped cursors, and subscriptions that wait on it.
//!
//! Cursors are `"<run>-<seq>"`: `run` is random per bus (so per service run), `seq` counts events
//! from 1; `"<run>-0"` is "before anything". A cursor means "I have seen everything up to here".
//! Memory is bounded by the ring (`eventRetention` events) whatever the subscribers do: a
//! subscriber never owns a queue; it remembers the next seq it wants and, when the ring has moved
//! past it, it gets a [`Gap`] and its subscription ends (the client then takes a new
//! `observation.snapshot`). An event larger than `maxEventBytes` keeps its slot in the ring but
//! carries no data; a subscriber whose filter matches it gets a gap instead.

use serde::Serialize;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::Notify;
use uuid::Uuid;

/// One published event as subscribers see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The cursor that resumes right after this event.
    pub cursor: String,
    /// Sequence number within this run (1, 2, ...).
    pub seq: u64,
    /// e.g. `project.changed`, `document.changed`.
    pub kind: String,
    /// The project it belongs to; `None` for service-wide facts.
    pub project: Option<Uuid>,
    /// Compact JSON of the data (one line; `projectId` included when `project` is set).
    pub data: Arc<str>,
}

/// The cursor a subscriber asked for no longer leads to a complete history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Gap {
    /// The cursor the subscriber gave (or the one it had reached).
    pub requested: String,
    /// The oldest cursor that can still be resumed from.
    pub oldest: String,
}

/// What a subscription yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    Event(Event),
    /// The history is incomplete from here; the subscription ends after this.
    Gap(Gap),
}

/// A subscription that cannot be opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubscribeError {
    #[error("{max} event subscriptions are open (maxSubscriptions)")]
    TooMany { max: u64 },
    #[error("the service is stopping")]
    Closed,
}

/// Bounds of the bus (CONVENTIONS limits `eventRetention`, `maxSubscriptions`, `maxEventBytes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BusConfig {
    pub retention: u64,
    pub max_subscriptions: u64,
    pub max_event_bytes: u64,
}

impl BusConfig {
    pub fn from_limits(limits: &crate::limits::Limits) -> Self {
        BusConfig {
            retention: limits.event_retention.max(1),
            max_subscriptions: limits.max_subscriptions,
            max_event_bytes: limits.max_event_bytes,
        }
    }
}

struct Slot {
    event: Event,
    oversized: bool,
}

struct Ring {
    slots: VecDeque<Slot>,
    /// Seq of the last published event (0 = none yet).
    last: u64,
    subscriptions: u64,
    closed: bool,
}

struct Inner {
    run: String,
    config: BusConfig,
    ring: Mutex<Ring>,
    notify: Notify,
}

/// The bus; cheap to clone, shared by every actor that publishes and every edge that observes.
#[derive(Clone)]
pub struct EventBus {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for EventBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventBus")
            .field("run", &self.inner.run)
            .finish()
    }
}

impl EventBus {
    pub fn new(config: BusConfig) -> Self {
        EventBus {
            inner: Arc::new(Inner {
                run: Uuid::new_v4().simple().to_string()[..12].to_string(),
                config,
                ring: Mutex::new(Ring {
                    slots: VecDeque::new(),
                    last: 0,
                    subscriptions: 0,
                    closed: false,
                }),
                notify: Notify::new(),
            }),
        }
    }

    fn ring(&self) -> MutexGuard<'_, Ring> {
        // A panic while holding this lock cannot leave the ring half-updated in a way that
        // matters (every update is a push/pop), so a poisoned lock is still usable.
        self.inner
            .ring
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn cursor(&self, seq: u64) -> String {
        format!("{}-{seq}", self.inner.run)
    }

    /// Publishes one event. `data` should be an object; `projectId` is added when `project` is set.
    /// Returns the event's cursor. After [`EventBus::close`] nothing is published.
    pub fn publish(&self, kind: &str, project: Option<Uuid>, data: Value) -> String {
        let data = match (data, project) {
            (Value::Object(mut map), Some(id)) => {
                map.entry("projectId")
                    .or_insert_with(|| Value::String(id.to_string()));
                Value::Object(map)
            }
            (other, _) => other,
        };
        let text = serde_json::to_string(&data).unwrap_or_else(|_| "null".to_string());
        let oversized = text.len() as u64 > self.inner.config.max_event_bytes;
        let mut ring = self.ring();
        if ring.closed {
            return self.cursor(ring.last);
        }
        ring.last += 1;
        let seq = ring.last;
        let cursor = self.cursor(seq);
        if oversized {
            tracing::warn!(
                kind,
                seq,
                bytes = text.len(),
                "event over maxEventBytes not delivered; observers get a gap"
            );
        }
        ring.slots.push_back(Slot {
            event: Event {
                cursor: cursor.clone(),
                seq,
                kind: kind.to_string(),
                project,
                data: if oversized {
                    Arc::from("null")
                } else {
                    Arc::from(text)
                },
            },
            oversized,
        });
        while ring.slots.len() as u64 > self.inner.config.retention {
            ring.slots.pop_front();
        }
        drop(ring);
        self.inner.notify.notify_waiters();
        cursor
    }

    /// The cursor of the newest event (what `observation.snapshot` reports).
    pub fn current_cursor(&self) -> String {
        let last = self.ring().last;
        self.cursor(last)
    }

    /// Opens a subscription that yields, in order, the events after `after` (or after now when
    /// `None`) that pass `filter`. A malformed cursor, one from another run, one from the
    /// future, or one older than retention yields a single gap.
    pub fn subscribe(
        &self,
        after: Option<&str>,
        filter: impl Fn(&Event) -> bool + Send + Sync + 'static,
    ) -> Result<Subscription, SubscribeError> {
        let mut ring = self.ring();
        if ring.closed {
            return Err(SubscribeError::Closed);
        }
        if ring.subscriptions >= self.inner.config.max_subscriptions {
            return Err(SubscribeError::TooMany {
                max: self.inner.config.max_subscriptions,
            });
        }
        let (next, requested) = match after {
            None => (ring.last + 1, None),
            Some(c) => match self.parse(c) {
                Some(seq) if seq <= ring.last => (seq + 1, Some(c.to_string())),
                _ => (0, Some(c.to_string())),
            },
        };
        ring.subscriptions += 1;
        Ok(Subscription {
            bus: self.clone(),
            next,
            requested,
            filter: Box::new(filter),
            ended: false,
        })
    }

    fn parse(&self, cursor: &str) -> Option<u64> {
        let (run, seq) = cursor.rsplit_once('-')?;
        if run != self.inner.run || seq.is_empty() || !seq.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        seq.parse().ok()
    }

    /// Ends every subscription and refuses new ones (service shutdown).
    pub fn close(&self) {
        self.ring().closed = true;
        self.inner.notify.notify_waiters();
    }

    pub fn is_closed(&self) -> bool {
        self.ring().closed
    }

    /// Subscriptions open now.
    pub fn subscriptions(&self) -> u64 {
        self.ring().subscriptions
    }
}

/// One observer's position on the bus; dropping it frees its slot.
pub struct Subscription {
    bus: EventBus,
    /// Next seq wanted; 0 = the requested cursor was unusable.
    next: u64,
    requested: Option<String>,
    filter: Box<dyn Fn(&Event) -> bool + Send + Sync>,
    ended: bool,
}

impl Subscription {
    /// The next delivery, waiting for one; `None` once the bus closed or after a gap.
    pub async fn next(&mut self) -> Option<Delivery> {
        loop {
            if self.ended {
                return None;
            }
            let inner = Arc::clone(&self.bus.inner);
            let notified = inner.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(step) = self.step() {
                return step;
            }
            notified.await;
        }
    }

    /// `Some(result)` when something can be returned now, `None` to wait.
    fn step(&mut self) -> Option<Option<Delivery>> {
        let ring = self.bus.ring();
        if ring.closed {
            self.ended = true;
            return Some(None);
        }
        let oldest = ring.slots.front().map_or(ring.last + 1, |s| s.event.seq);
        let oldest_cursor = self.bus.cursor(oldest - 1);
        let gap = |this: &mut Self| {
            this.ended = true;
            let requested = this
                .requested
                .clone()
                .unwrap_or_else(|| this.bus.cursor(this.next.saturating_sub(1)));
            Some(Some(Delivery::Gap(Gap {
                requested,
                oldest: oldest_cursor.clone(),
            })))
        };
        if self.next == 0 || self.next < oldest {
            drop(ring);
            return gap(self);
        }
        while self.next <= ring.last {
            let index = (self.next - oldest) as usize;
            let Some(slot) = ring.slots.get(index) else {
                break;
            };
            self.next += 1;
            if !(self.filter)(&slot.event) {
                continue;
            }
            if slot.oversized {
                self.requested = Some(self.bus.cursor(slot.event.seq - 1));
                drop(ring);
                return gap(self);
            }
            self.requested = None;
            return Some(Some(Delivery::Event(slot.event.clone())));
        }
        self.requested = None;
        None
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut ring = self.bus.ring();
        ring.subscriptions = ring.subscriptions.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bus(retention: u64) -> EventBus {
        EventBus::new(BusConfig {
            retention,
            max_subscriptions: 2,
            max_event_bytes: 64,
        })
    }

    async fn take(sub: &mut Subscription) -> Option<Delivery> {
        tokio::time::timeout(std::time::Duration::from_millis(200), sub.next())
            .await
            .ok()
            .flatten()
    }

    fn kind(d: Option<Delivery>) -> String {
        match d {
            Some(Delivery::Event(e)) => e.kind,
            Some(Delivery::Gap(_)) => "gap".into(),
            None => "none".into(),
        }
    }

    #[tokio::test]
    async fn resumes_after_a_cursor_and_waits_for_new_events() {
        let b = bus(8);
        let start = b.current_cursor();
        let c1 = b.publish("a", None, json!({}));
        b.publish("b", None, json!({}));
        let mut from_start = b.subscribe(Some(&start), |_| true).unwrap();
        assert_eq!(kind(take(&mut from_start).await), "a");
        assert_eq!(kind(take(&mut from_start).await), "b");
        let mut from_c1 = b.subscribe(Some(&c1), |_| true).unwrap();
        assert_eq!(kind(take(&mut from_c1).await), "b");
        let waiter = tokio::spawn(async move { kind(from_c1.next().await) });
        tokio::task::yield_now().await;
        b.publish("c", None, json!({}));
        assert_eq!(waiter.await.unwrap(), "c");
    }

    #[tokio::test]
    async fn old_foreign_malformed_and_future_cursors_get_a_gap() {
        let b = bus(2);
        let first = b.current_cursor();
        b.publish("a", None, json!({}));
        b.publish("b", None, json!({}));
        b.publish("c", None, json!({}));
        let other = bus(2).current_cursor();
        let future = format!("{}-99", first.rsplit_once('-').unwrap().0);
        for c in [
            first.as_str(),
            other.as_str(),
            "x",
            "",
            "-1",
            future.as_str(),
        ] {
            let mut s = b.subscribe(Some(c), |_| true).unwrap();
            match take(&mut s).await {
                Some(Delivery::Gap(g)) => {
                    assert_eq!(g.requested, c);
                    assert!(g.oldest.ends_with("-1"), "{g:?}");
                }
                other => panic!("{c}: {other:?}"),
            }
            assert!(take(&mut s).await.is_none());
        }
    }

    #[tokio::test]
    async fn a_slow_subscriber_gets_a_gap_and_memory_stays_bounded() {
        let b = bus(4);
        let mut s = b.subscribe(None, |_| true).unwrap();
        for _ in 0..10 {
            b.publish("x", None, json!({}));
        }
        assert_eq!(b.ring().slots.len(), 4);
        assert_eq!(kind(take(&mut s).await), "gap");
    }

    #[tokio::test]
    async fn filters_oversized_events_and_projects_into_data() {
        let b = bus(8);
        let p = Uuid::new_v4();
        let mut mine = b.subscribe(None, move |e| e.project == Some(p)).unwrap();
        b.publish("other", Some(Uuid::new_v4()), json!({}));
        b.publish("mine", Some(p), json!({"n": 1}));
        match take(&mut mine).await {
            Some(Delivery::Event(e)) => assert!(e.data.contains(&p.to_string())),
            other => panic!("{other:?}"),
        }
        b.publish("big", Some(p), json!({"s": "x".repeat(100)}));
        assert_eq!(kind(take(&mut mine).await), "gap");
    }

    #[tokio::test]
    async fn subscriptions_are_bounded_and_close_ends_them() {
        let b = bus(8);
        let mut s1 = b.subscribe(None, |_| true).unwrap();
        let s2 = b.subscribe(None, |_| true).unwrap();
        assert_eq!(
            b.subscribe(None, |_| true).err(),
            Some(SubscribeError::TooMany { max: 2 })
        );
        drop(s2);
        let _s3 = b.subscribe(None, |_| true).unwrap();
        let waiter = tokio::spawn(async move { s1.next().await });
        tokio::task::yield_now().await;
        b.close();
        assert!(waiter.await.unwrap().is_none());
        assert_eq!(
            b.subscribe(None, |_| true).err(),
            Some(SubscribeError::Closed)
        );
    }
}
