//! One connection pool for every networked store (PostgreSQL, Redis), with
//! its circuit breaker ([`breaker`]) built in: at most `max` connections,
//! each made on the thread of the call that needs it. A backend says only
//! how to make, test and close its connections ([`Connector`]).
//!
//! Why not r2d2 (used before): r2d2 opens connections on its own worker
//! threads, and a caller waiting for one learns that the connect failed
//! only when its own wait times out. When the server went down, every call
//! in flight waited the whole checkout timeout though the server had
//! refused at once; and that timeout was the same error whether the server
//! was unreachable or every connection was merely busy, so load looked like
//! an outage. Its threads also do not exist in a child after `fork()`. Here:
//!
//! - A caller that needs a new connection makes it itself: a refused
//!   connect fails that call at once ([`CheckoutError::Unreachable`]) and
//!   opens the breaker, and wakes every caller waiting for a connection,
//!   which fail too (none waits out its timeout for a connection that will
//!   not come).
//! - While the breaker is open, calls fail at once
//!   ([`CheckoutError::Refused`]) and one caller at a time probes, with the
//!   short probe timeout.
//! - Waiting for a busy pool ends as [`CheckoutError::Exhausted`]: the
//!   server is fine, this process has more concurrent calls than
//!   connections. Load never opens the breaker.
//! - An idle connection is tested before it is handed out where the
//!   backend can do so cheaply ([`Connector::check`]); one that fails is
//!   closed and another taken. Connections idle or alive longer than the
//!   pool's limits are closed when a call finds them, with no reaper
//!   thread.
//! - No threads, and fork-aware: connections belong to the process that
//!   made them. In a child after `fork()` they are never used, nor closed
//!   (closing could end the parent's session on the shared socket): they
//!   are forgotten and the child makes its own.
//!
//! The pool's lock is never held while talking to the server.

// Each backend uses part of the pool (Redis never tests a connection,
// PostgreSQL never reports a failed call): a build with one of them leaves
// the other part unused.
#![cfg_attr(not(all(feature = "postgres", feature = "redis")), allow(dead_code))]

pub mod breaker;

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use breaker::{Admission, Breaker};

/// What a backend tells the pool about its connections.
pub(crate) trait Connector: Send + Sync {
    type Conn: Send;

    /// Make a connection; `probe`: a breaker probe, which should use a
    /// short connect timeout. The error text says why (never a password).
    fn connect(&self, probe: bool) -> Result<Self::Conn, String>;

    /// Test an idle connection before it is handed out.
    fn check(&self, conn: &mut Self::Conn) -> Check;

    /// Whether a connection given back is closed (then it is not kept).
    fn is_closed(&self, conn: &Self::Conn) -> bool;

    /// Close a connection the pool no longer keeps.
    fn close(&self, conn: Self::Conn) {
        drop(conn);
    }
}

/// The outcome of [`Connector::check`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// The server answered on it: hand it out.
    Alive,
    /// Broken or dropped by the server: close it, take another.
    Dead,
    /// Not tested (the backend retries a stale connection itself): hand it
    /// out; the call made on it tells whether the server is there.
    Untested,
}

/// Why no connection could be had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CheckoutError {
    /// The server was unreachable moments ago: failing fast until a probe
    /// reaches it.
    Refused,
    /// A connection could not be made: by this call, or, while it waited,
    /// by another.
    Unreachable(String),
    /// Every connection stayed busy for the whole wait.
    Exhausted { waited: Duration, max: u32 },
}

/// How long connections live and how long a call waits for one.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// At most this many connections exist at once.
    pub max: u32,
    /// How long a call waits for a busy pool (and a connect may take).
    pub wait: Duration,
    /// How long a breaker probe waits.
    pub probe_wait: Duration,
    /// An idle connection unused this long is closed rather than handed out.
    pub idle_timeout: Option<Duration>,
    /// A connection this old is closed rather than handed out (so
    /// connections move to a new server behind the same name).
    pub max_lifetime: Option<Duration>,
}

struct Idle<T> {
    conn: T,
    born: Instant,
    since: Instant,
}

struct State<T> {
    /// Most recently returned last: calls take from the end, so unneeded
    /// connections age at the front.
    idle: Vec<Idle<T>>,
    /// Connections that exist or are being made: idle, in use, connecting.
    open: u32,
    /// Failed connects so far: a waiter that sees it change knows a
    /// connect failed while it waited.
    connect_failures: u64,
    last_failure: String,
    /// The process the connections belong to.
    pid: u32,
}

pub(crate) struct Pool<C: Connector> {
    connector: C,
    limits: Limits,
    state: Mutex<State<C::Conn>>,
    /// Signalled when a connection goes back or a slot frees up (one
    /// waiter), and when a connect fails (every waiter).
    changed: Condvar,
    breaker: Breaker,
}

/// A checked-out connection; goes back to the pool when dropped (closed
/// instead when [`Pooled::failed`] marked it broken).
pub(crate) struct Pooled<'a, C: Connector> {
    pool: &'a Pool<C>,
    conn: Option<C::Conn>,
    born: Instant,
    pid: u32,
    /// The breaker admission still to be settled by the call made on this
    /// connection: a probe handed an untested connection.
    admission: Admission,
    broken: bool,
}

impl<C: Connector> Pool<C> {
    pub(crate) fn new(connector: C, limits: Limits) -> Pool<C> {
        Pool {
            connector,
            limits: Limits { max: limits.max.max(1), ..limits },
            state: Mutex::new(State {
                idle: Vec::new(),
                open: 0,
                connect_failures: 0,
                last_failure: String::new(),
                pid: std::process::id(),
            }),
            changed: Condvar::new(),
            breaker: Breaker::default(),
        }
    }

    pub(crate) fn max(&self) -> u32 {
        self.limits.max
    }

    /// The lock, even after a panic elsewhere (the state is only changed
    /// by assignments that cannot panic halfway); in a child after
    /// `fork()`, the parent's connections are forgotten first.
    fn lock(&self) -> MutexGuard<'_, State<C::Conn>> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let pid = std::process::id();
        if state.pid != pid {
            for idle in state.idle.drain(..) {
                std::mem::forget(idle);
            }
            state.open = 0;
            state.pid = pid;
        }
        state
    }

    fn expired(&self, born: Instant, since: Instant, now: Instant) -> bool {
        self.limits.idle_timeout.is_some_and(|t| now.duration_since(since) >= t)
            || self.limits.max_lifetime.is_some_and(|t| now.duration_since(born) >= t)
    }

    /// A connection, through the breaker: refused at once while it is
    /// open (but for one probe at a time), within the pool's wait when
    /// every connection is busy.
    pub(crate) fn get(&self) -> Result<Pooled<'_, C>, CheckoutError> {
        let admission = self.breaker.admit();
        let (wait, probe) = match admission {
            Admission::Refused => return Err(CheckoutError::Refused),
            Admission::Probe => (self.limits.wait.min(self.limits.probe_wait), true),
            Admission::Normal => (self.limits.wait, false),
        };
        match self.checkout(wait, probe) {
            Ok((mut pooled, proven)) => {
                if proven {
                    if probe || self.breaker.is_open() {
                        self.breaker.succeeded();
                    }
                } else {
                    pooled.admission = admission;
                }
                Ok(pooled)
            }
            Err(CheckoutError::Unreachable(reason)) => {
                self.breaker.failed(admission);
                Err(CheckoutError::Unreachable(reason))
            }
            Err(e) => {
                if probe {
                    // Busy connections say nothing about the server now:
                    // the next caller probes again.
                    self.breaker.probe_abandoned();
                }
                Err(e)
            }
        }
    }

    /// A connection within `wait`, and whether getting it proved the server
    /// answers (a new connection, or an idle one whose check it answered).
    fn checkout(&self, wait: Duration, probe: bool) -> Result<(Pooled<'_, C>, bool), CheckoutError> {
        let started = Instant::now();
        let deadline = started + wait;
        let mut state = self.lock();
        let failures_seen = state.connect_failures;
        loop {
            if let Some(Idle { mut conn, born, since }) = state.idle.pop() {
                let pid = state.pid;
                drop(state);
                if !self.expired(born, since, Instant::now()) && !self.connector.is_closed(&conn) {
                    match self.connector.check(&mut conn) {
                        Check::Dead => {}
                        check => return Ok((self.pooled(conn, born, pid), check == Check::Alive)),
                    }
                }
                // Too old, or dropped by the server: close it (outside the
                // lock) and take another, or make a new one.
                self.connector.close(conn);
                state = self.lock();
                state.open = state.open.saturating_sub(1);
                continue;
            }
            if state.open < self.limits.max {
                state.open += 1;
                let pid = state.pid;
                drop(state);
                return match self.connector.connect(probe) {
                    Ok(conn) => Ok((self.pooled(conn, Instant::now(), pid), true)),
                    Err(reason) => {
                        let mut state = self.lock();
                        if state.pid == pid {
                            state.open = state.open.saturating_sub(1);
                        }
                        state.connect_failures += 1;
                        state.last_failure.clone_from(&reason);
                        drop(state);
                        self.changed.notify_all();
                        Err(CheckoutError::Unreachable(reason))
                    }
                };
            }
            if state.connect_failures != failures_seen {
                return Err(CheckoutError::Unreachable(state.last_failure.clone()));
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(CheckoutError::Exhausted { waited: now - started, max: self.limits.max });
            }
            state = self.changed.wait_timeout(state, deadline - now).unwrap_or_else(|p| p.into_inner()).0;
            // `wait_timeout` hands back the guard without `lock`'s fork
            // check; a fork cannot happen on this thread while it waits,
            // and the next `lock` does it for everyone else.
        }
    }

    fn pooled(&self, conn: C::Conn, born: Instant, pid: u32) -> Pooled<'_, C> {
        Pooled { pool: self, conn: Some(conn), born, pid, admission: Admission::Normal, broken: false }
    }

    fn put_back(&self, conn: C::Conn, born: Instant, pid: u32, broken: bool) {
        let mut state = self.lock();
        if state.pid != pid {
            // Made before a fork, given back in the child: the parent's.
            drop(state);
            std::mem::forget(conn);
            return;
        }
        let now = Instant::now();
        // The connection unused longest goes if it has idled too long: a
        // process that needed more connections than it does now sheds them.
        let stale = match state.idle.first() {
            Some(oldest) if self.expired(oldest.born, oldest.since, now) => {
                state.open = state.open.saturating_sub(1);
                Some(state.idle.remove(0).conn)
            }
            _ => None,
        };
        let closed = if broken || self.connector.is_closed(&conn) {
            state.open = state.open.saturating_sub(1);
            Some(conn)
        } else {
            state.idle.push(Idle { conn, born, since: now });
            None
        };
        drop(state);
        self.changed.notify_one();
        for conn in stale.into_iter().chain(closed) {
            self.connector.close(conn);
        }
    }
}

impl<C: Connector> Pooled<'_, C> {
    /// The server answered a call made on this connection (a reply, an
    /// error reply included): settles a probe.
    pub(crate) fn answered(&self) {
        let breaker = &self.pool.breaker;
        if self.admission == Admission::Probe || breaker.is_open() {
            breaker.succeeded();
        }
    }

    /// The connection failed under a call: it is closed instead of going
    /// back. `retrying`: the caller tries again on another connection (a
    /// stale connection says nothing about the server, so a probe is
    /// handed on); otherwise the failure opens the breaker.
    pub(crate) fn failed(&mut self, retrying: bool) {
        self.broken = true;
        let breaker = &self.pool.breaker;
        if retrying {
            if self.admission == Admission::Probe {
                breaker.probe_abandoned();
            }
        } else {
            breaker.failed(self.admission);
        }
        // Settled: nothing more to report for this connection.
        self.admission = Admission::Normal;
    }
}

impl<C: Connector> Drop for Pool<C> {
    fn drop(&mut self) {
        // `lock` forgets a parent's connections in a child; our own close
        // normally as they drop.
        drop(self.lock());
    }
}

impl<C: Connector> std::ops::Deref for Pooled<'_, C> {
    type Target = C::Conn;

    fn deref(&self) -> &C::Conn {
        self.conn.as_ref().expect("present until dropped")
    }
}

impl<C: Connector> std::ops::DerefMut for Pooled<'_, C> {
    fn deref_mut(&mut self) -> &mut C::Conn {
        self.conn.as_mut().expect("present until dropped")
    }
}

impl<C: Connector> Drop for Pooled<'_, C> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            if self.admission == Admission::Probe {
                // Given back with its probe unsettled: the next caller probes.
                self.pool.breaker.probe_abandoned();
            }
            self.pool.put_back(conn, self.born, self.pid, self.broken);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
    use std::sync::Arc;

    /// Connections are numbers; the "server" is up or down.
    struct Fake {
        up: Arc<AtomicBool>,
        made: AtomicU32,
        check: Check,
    }

    impl Connector for Fake {
        type Conn = u32;
        fn connect(&self, _probe: bool) -> Result<u32, String> {
            if self.up.load(Ordering::SeqCst) {
                Ok(self.made.fetch_add(1, Ordering::SeqCst))
            } else {
                Err("refused".into())
            }
        }
        fn check(&self, _conn: &mut u32) -> Check {
            if self.up.load(Ordering::SeqCst) {
                self.check
            } else if self.check == Check::Untested {
                Check::Untested
            } else {
                Check::Dead
            }
        }
        fn is_closed(&self, _conn: &u32) -> bool {
            false
        }
    }

    fn pool(max: u32, check: Check) -> (Pool<Fake>, Arc<AtomicBool>) {
        let up = Arc::new(AtomicBool::new(true));
        let limits = Limits {
            max,
            wait: Duration::from_millis(200),
            probe_wait: Duration::from_millis(50),
            idle_timeout: Some(Duration::from_secs(600)),
            max_lifetime: Some(Duration::from_secs(1800)),
        };
        (Pool::new(Fake { up: up.clone(), made: AtomicU32::new(0), check }, limits), up)
    }

    #[test]
    fn idle_and_old_connections_expire() {
        let (p, _) = pool(1, Check::Alive);
        let now = Instant::now() + Duration::from_secs(3600 * 2);
        let ago = |d: Duration| now - d;
        let minute = Duration::from_secs(60);
        assert!(!p.expired(ago(minute), ago(minute), now), "fresh");
        assert!(p.expired(ago(minute * 11), ago(minute * 10), now), "idle for the idle timeout");
        assert!(p.expired(ago(minute * 30), now, now), "in use all along, but at the max lifetime");
        assert!(!p.expired(ago(minute * 29), ago(minute * 9), now));
    }

    #[test]
    fn a_refused_connect_fails_at_once_frees_its_slot_and_opens_the_breaker() {
        let (p, up) = pool(1, Check::Alive);
        up.store(false, Ordering::SeqCst);
        let started = Instant::now();
        assert_eq!(p.get().err(), Some(CheckoutError::Unreachable("refused".into())));
        assert!(started.elapsed() < Duration::from_millis(150), "no wait for the checkout timeout");
        assert_eq!(p.lock().open, 0, "the failed connect gave its slot back");
        assert_eq!(p.get().err(), Some(CheckoutError::Refused), "open: fail fast");
        // Up again: after the back-off, one probe reconnects and closes it.
        up.store(true, Ordering::SeqCst);
        std::thread::sleep(breaker::INITIAL_BACKOFF);
        assert!(p.get().is_ok());
        assert!(!p.breaker.is_open());
    }

    #[test]
    fn a_busy_pool_is_exhausted_not_an_outage() {
        let (p, _) = pool(1, Check::Alive);
        let held = p.get().unwrap();
        assert!(matches!(p.get().err(), Some(CheckoutError::Exhausted { max: 1, .. })));
        assert!(!p.breaker.is_open(), "load never opens the breaker");
        drop(held);
        assert_eq!(*p.get().unwrap(), 0, "the connection was given back and reused");
    }

    #[test]
    fn a_dead_idle_connection_is_replaced() {
        let (p, up) = pool(2, Check::Alive);
        drop(p.get().unwrap());
        up.store(false, Ordering::SeqCst);
        // The idle connection fails its check; the new connect is refused.
        assert_eq!(p.get().err(), Some(CheckoutError::Unreachable("refused".into())));
        assert_eq!(p.lock().open, 0);
    }

    #[test]
    fn an_untested_connection_settles_the_probe_by_its_call() {
        let (p, up) = pool(1, Check::Untested);
        drop(p.get().unwrap());
        // The server goes away: the idle connection fails under a call.
        up.store(false, Ordering::SeqCst);
        let mut c = p.get().unwrap();
        c.failed(false);
        drop(c);
        assert!(p.breaker.is_open());
        std::thread::sleep(breaker::INITIAL_BACKOFF);
        up.store(true, Ordering::SeqCst);
        let c = p.get().unwrap(); // a new connect: proven
        assert!(!p.breaker.is_open());
        c.answered();
    }

    #[test]
    fn a_forked_child_forgets_the_parents_connections() {
        let (p, _) = pool(2, Check::Alive);
        drop(p.get().unwrap());
        p.state.lock().unwrap().pid = 1; // as if this were a child of pid 1's
        assert_eq!(p.lock().idle.len(), 0);
        assert_eq!(p.lock().open, 0);
    }
}
