//! A circuit breaker for a database connection. While the database is
//! reachable it is closed and costs one uncontended lock per call. After a
//! connection failure it opens: calls fail at once (no request waits for a
//! connect timeout) for a short back-off, after which exactly one caller at
//! a time probes the database with a short timeout. A successful probe
//! closes it; a failed one reopens it with the back-off doubled, up to
//! [`MAX_BACKOFF`], so recovery is noticed within about that long.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// First back-off after a failure.
pub const INITIAL_BACKOFF: Duration = Duration::from_millis(100);
/// Longest back-off: the database is probed at least this often.
pub const MAX_BACKOFF: Duration = Duration::from_millis(500);

/// What a caller may do now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Closed: connect as usual.
    Normal,
    /// Half-open: this caller is the one probe; connect with a short timeout.
    Probe,
    /// Open: fail at once.
    Refused,
}

#[derive(Debug)]
struct State {
    open_until: Option<Instant>,
    probing: bool,
    backoff: Duration,
}

#[derive(Debug)]
pub struct Breaker {
    state: Mutex<State>,
}

impl Default for Breaker {
    fn default() -> Self {
        Breaker { state: Mutex::new(State { open_until: None, probing: false, backoff: INITIAL_BACKOFF }) }
    }
}

impl Breaker {
    pub fn admit(&self) -> Admission {
        self.admit_at(Instant::now())
    }

    fn admit_at(&self, now: Instant) -> Admission {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match state.open_until {
            None => Admission::Normal,
            Some(until) if now < until || state.probing => Admission::Refused,
            Some(_) => {
                state.probing = true;
                Admission::Probe
            }
        }
    }

    /// A connection was made: close.
    pub fn succeeded(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        *state = State { open_until: None, probing: false, backoff: INITIAL_BACKOFF };
    }

    /// A connection could not be made: open (again) for the back-off.
    pub fn failed(&self, admission: Admission) {
        self.failed_at(admission, Instant::now());
    }

    fn failed_at(&self, admission: Admission, now: Instant) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let backoff = state.backoff;
        if admission == Admission::Probe || state.open_until.is_none() {
            state.open_until = Some(now + backoff);
            state.backoff = (backoff * 2).min(MAX_BACKOFF);
        }
        if admission == Admission::Probe {
            state.probing = false;
        }
    }

    /// The probe learned nothing (it waited for a busy pool and made no
    /// connection): the next caller probes instead.
    pub fn probe_abandoned(&self) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).probing = false;
    }

    /// Whether calls are failing fast now.
    pub fn is_open(&self) -> bool {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).open_until.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_on_failure_probes_once_and_closes_on_success() {
        let b = Breaker::default();
        let t0 = Instant::now();
        assert_eq!(b.admit_at(t0), Admission::Normal);
        b.failed_at(Admission::Normal, t0);
        assert_eq!(b.admit_at(t0), Admission::Refused, "open: fail fast");
        let later = t0 + INITIAL_BACKOFF;
        assert_eq!(b.admit_at(later), Admission::Probe);
        assert_eq!(b.admit_at(later), Admission::Refused, "one probe at a time");
        b.failed_at(Admission::Probe, later);
        assert_eq!(b.admit_at(later + INITIAL_BACKOFF), Admission::Refused, "the back-off doubled");
        let next = later + INITIAL_BACKOFF * 2;
        assert_eq!(b.admit_at(next), Admission::Probe);
        b.succeeded();
        assert_eq!(b.admit_at(next), Admission::Normal);
        assert!(!b.is_open());
    }

    #[test]
    fn the_back_off_is_bounded() {
        let b = Breaker::default();
        let mut now = Instant::now();
        b.failed_at(Admission::Normal, now);
        for _ in 0..20 {
            now += MAX_BACKOFF;
            assert_eq!(b.admit_at(now), Admission::Probe, "probed at least every {MAX_BACKOFF:?}");
            b.failed_at(Admission::Probe, now);
        }
    }

    #[test]
    fn an_abandoned_probe_lets_the_next_caller_probe() {
        let b = Breaker::default();
        let t0 = Instant::now();
        b.failed_at(Admission::Normal, t0);
        let later = t0 + INITIAL_BACKOFF;
        assert_eq!(b.admit_at(later), Admission::Probe);
        b.probe_abandoned();
        assert!(b.is_open(), "still open: the probe learned nothing");
        assert_eq!(b.admit_at(later), Admission::Probe, "the next caller probes");
    }

    #[test]
    fn concurrent_failures_while_open_do_not_extend_it() {
        let b = Breaker::default();
        let t0 = Instant::now();
        b.failed_at(Admission::Normal, t0);
        // Callers that started before it opened report their failures late.
        b.failed_at(Admission::Normal, t0 + Duration::from_millis(90));
        assert_eq!(b.admit_at(t0 + INITIAL_BACKOFF), Admission::Probe);
    }
}
