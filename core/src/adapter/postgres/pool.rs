//! The PostgreSQL adapter's connection pool: at most `max` connections,
//! each made on the thread of the call that needs it.
//!
//! Why not r2d2 (used before): r2d2 opens connections on its own worker
//! threads, and a caller waiting for one learns that the connect failed
//! only when its own wait times out. When the server went down, every call
//! in flight waited the whole checkout timeout (5 s by default) though the
//! server had refused at once; and that timeout was the same error whether
//! the server was unreachable or every connection was merely busy, so load
//! looked like an outage to the circuit breaker. Its threads also do not
//! exist in a child after `fork()`. Here:
//!
//! - A caller that needs a new connection makes it itself: a refused
//!   connect fails that call at once ([`CheckoutError::Unreachable`]), and
//!   wakes every caller waiting for a connection, which fail too (a failed
//!   connect is news for all of them; none waits out its timeout for a
//!   connection that will not come).
//! - Waiting for a busy pool ends as [`CheckoutError::Exhausted`] after the
//!   wait given: the server is fine, this process has more concurrent
//!   calls than connections.
//! - An idle connection is tested (`SELECT` of nothing, bounded by a
//!   timeout) before it is handed out; one that fails is discarded and a
//!   new one made in its place. So a connection the server dropped (a
//!   restart, an idle timeout) costs nothing when the server is up, and
//!   fails at once, as a refused connect, when it is down.
//! - Connections idle for [`IDLE_TIMEOUT`] or older than [`MAX_LIFETIME`]
//!   (r2d2's defaults) are closed when a call finds them, instead of by a
//!   reaper thread: a busy process sheds the connections it no longer
//!   needs; a process that gets no calls at all keeps up to `max` open
//!   (the server's `idle_session_timeout` can end those).
//! - No threads, and fork-aware: connections belong to the process that
//!   made them. In a child after `fork()` they are never used, nor closed
//!   (closing would send the server a Terminate on the parent's socket and
//!   end the parent's session): they are forgotten and the child makes its
//!   own.
//!
//! The pool's lock is never held while talking to the server.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use postgres::Client;

/// Why no connection could be had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CheckoutError {
    /// A connection could not be made: by this call, or, while it waited,
    /// by another. The text says why (never a password).
    Unreachable(String),
    /// Every connection stayed busy for the whole wait.
    Exhausted { waited: Duration },
}

/// An idle connection unused this long is closed rather than handed out.
pub(crate) const IDLE_TIMEOUT: Duration = Duration::from_secs(10 * 60);
/// A connection this old is closed rather than handed out (so connections
/// move to a new server behind the same name, a pooler's new backend, …).
pub(crate) const MAX_LIFETIME: Duration = Duration::from_secs(30 * 60);

/// Makes a connection; `probe` asks for the short connect timeout of a
/// circuit-breaker probe.
pub(crate) type Connect = Box<dyn Fn(bool) -> Result<Client, String> + Send + Sync>;

/// A connection in the pool, with when it was made and last returned.
struct Idle {
    client: Client,
    born: Instant,
    since: Instant,
}

/// Whether a connection made at `born` and idle since `since` is to be
/// closed.
fn expired(born: Instant, since: Instant, now: Instant) -> bool {
    now.duration_since(since) >= IDLE_TIMEOUT || now.duration_since(born) >= MAX_LIFETIME
}

struct State {
    /// Most recently returned last: calls take from the end, so unneeded
    /// connections age at the front.
    idle: Vec<Idle>,
    /// Connections that exist or are being made: idle, in use, connecting.
    open: u32,
    /// Failed connects so far: a waiter that sees it change knows a connect
    /// failed while it waited.
    connect_failures: u64,
    last_failure: String,
    /// The process the connections belong to.
    pid: u32,
}

pub(crate) struct Pool {
    connect: Connect,
    max: u32,
    validate_timeout: Duration,
    state: Mutex<State>,
    /// Signalled when a connection goes back to the pool or a slot frees up
    /// (one waiter), and when a connect fails (every waiter).
    changed: Condvar,
}

/// A checked-out connection; goes back to the pool when dropped.
pub(crate) struct PooledClient<'a> {
    pool: &'a Pool,
    client: Option<Client>,
    born: Instant,
    pid: u32,
}

impl Pool {
    pub(crate) fn new(max: u32, validate_timeout: Duration, connect: Connect) -> Pool {
        Pool {
            connect,
            max,
            validate_timeout,
            state: Mutex::new(State {
                idle: Vec::new(),
                open: 0,
                connect_failures: 0,
                last_failure: String::new(),
                pid: std::process::id(),
            }),
            changed: Condvar::new(),
        }
    }

    pub(crate) fn max(&self) -> u32 {
        self.max
    }

    /// The lock, even after a panic elsewhere: the state is only ever
    /// changed by a few assignments that cannot panic halfway.
    fn lock(&self) -> MutexGuard<'_, State> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let pid = std::process::id();
        if state.pid != pid {
            // A child after fork(): the connections are the parent's.
            for idle in state.idle.drain(..) {
                std::mem::forget(idle);
            }
            state.open = 0;
            state.pid = pid;
        }
        state
    }

    /// A connection, within `wait` when every one is busy.
    pub(crate) fn get(&self, wait: Duration, probe: bool) -> Result<PooledClient<'_>, CheckoutError> {
        let started = Instant::now();
        let deadline = started + wait;
        let mut state = self.lock();
        let failures_seen = state.connect_failures;
        loop {
            if let Some(Idle { mut client, born, since }) = state.idle.pop() {
                let pid = state.pid;
                drop(state);
                if !expired(born, since, Instant::now())
                    && !client.is_closed()
                    && client.is_valid(self.validate_timeout).is_ok()
                {
                    return Ok(PooledClient { pool: self, client: Some(client), born, pid });
                }
                // Too old, or dropped by the server: discard it (outside
                // the lock) and take another, or make a new one.
                discard(client);
                state = self.lock();
                state.open = state.open.saturating_sub(1);
                continue;
            }
            if state.open < self.max {
                state.open += 1;
                let pid = state.pid;
                drop(state);
                return match (self.connect)(probe) {
                    Ok(client) => Ok(PooledClient { pool: self, client: Some(client), born: Instant::now(), pid }),
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
                return Err(CheckoutError::Exhausted { waited: now - started });
            }
            state = self.changed.wait_timeout(state, deadline - now).unwrap_or_else(|p| p.into_inner()).0;
            // `wait_timeout` hands back the guard without `lock`'s fork
            // check; a fork cannot happen on this thread while it waits,
            // and the next `lock` does it for everyone else.
        }
    }

    fn put_back(&self, client: Client, born: Instant, pid: u32) {
        let mut state = self.lock();
        if state.pid != pid {
            // Made before a fork, given back in the child: the parent's.
            drop(state);
            std::mem::forget(client);
            return;
        }
        let now = Instant::now();
        // The connection unused longest goes if it has idled too long: a
        // process that needed more connections than it does now sheds them.
        let stale = match state.idle.first() {
            Some(oldest) if expired(oldest.born, oldest.since, now) => {
                state.open = state.open.saturating_sub(1);
                Some(state.idle.remove(0).client)
            }
            _ => None,
        };
        let closed = if client.is_closed() {
            state.open = state.open.saturating_sub(1);
            Some(client)
        } else {
            state.idle.push(Idle { client, born, since: now });
            None
        };
        drop(state);
        self.changed.notify_one();
        stale.into_iter().chain(closed).for_each(discard);
    }
}

/// Close a connection that failed its test. Closing waits for the server
/// to close its end: at once for a connection that is closed already, but
/// possibly for many minutes for one whose server stopped answering (the
/// test timed out), which is then closed on a thread of its own rather
/// than hold up a request.
fn discard(client: Client) {
    if client.is_closed() {
        return drop(client);
    }
    // Should no thread be had, the closure, and the connection with it, is
    // dropped here after all.
    let _ = std::thread::Builder::new().name("libauth-pg-close".into()).spawn(move || drop(client));
}

impl Drop for Pool {
    fn drop(&mut self) {
        // `lock` forgets a parent's connections in a child; our own close
        // normally as they drop.
        drop(self.lock());
    }
}

impl std::ops::Deref for PooledClient<'_> {
    type Target = Client;

    fn deref(&self) -> &Client {
        self.client.as_ref().expect("present until dropped")
    }
}

impl std::ops::DerefMut for PooledClient<'_> {
    fn deref_mut(&mut self) -> &mut Client {
        self.client.as_mut().expect("present until dropped")
    }
}

impl Drop for PooledClient<'_> {
    fn drop(&mut self) {
        if let Some(client) = self.client.take() {
            self.pool.put_back(client, self.born, self.pid);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_and_old_connections_expire() {
        // Later than now, so `now - d` exists however short the uptime.
        let now = Instant::now() + MAX_LIFETIME * 2;
        let ago = |d: Duration| now - d;
        let minute = Duration::from_secs(60);
        assert!(!expired(ago(minute), ago(minute), now), "fresh");
        assert!(expired(ago(minute * 11), ago(IDLE_TIMEOUT), now), "idle for IDLE_TIMEOUT");
        assert!(expired(ago(MAX_LIFETIME), now, now), "in use all along, but MAX_LIFETIME old");
        assert!(!expired(ago(MAX_LIFETIME - minute), ago(IDLE_TIMEOUT - minute), now));
    }

    #[test]
    fn a_refused_connect_fails_at_once_and_frees_its_slot() {
        let pool = Pool::new(1, Duration::from_secs(1), Box::new(|_| Err("refused".to_owned())));
        for _ in 0..3 {
            let started = Instant::now();
            let err = pool.get(Duration::from_secs(5), false).err();
            assert_eq!(err, Some(CheckoutError::Unreachable("refused".to_owned())));
            assert!(started.elapsed() < Duration::from_secs(1), "no wait for the checkout timeout");
        }
        assert_eq!(pool.lock().open, 0, "every failed connect gave its slot back");
    }
}
