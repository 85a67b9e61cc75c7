//! The bound on hashing: at most N hash or verify jobs run at once, at
//! most Q more wait for a slot, and the next one is refused at once
//! ([`Busy`]: the route answers 503 with `Retry-After`). With N slots,
//! hashing holds at most N × [`super::PasswordHasher::max_job_memory_kib`]
//! of memory, whatever the burst of sign-ins.
//!
//! A job runs on the slot's own thread (one per slot, started on first use
//! and again after a `fork`), while the caller waits for its answer. Not on
//! the caller's thread: glibc's allocator keeps a freed large buffer in the
//! arena of the thread that freed it, so with a hundred request threads
//! each hashing once, each kept its 19 MiB (measured: 3.8 to 6.8 GB of RSS
//! under 100 concurrent sign-ins). With N slot threads only N arenas ever
//! hold hashing memory.
//!
//! Waiting is first come, first served (a ticket queue): a caller that
//! arrives while others wait queues behind them even if a slot is free at
//! that instant, so no waiter starves. A job is pure CPU with a capped
//! cost, so a waiter waits at most about Q / N job times.

use std::sync::mpsc;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crate::error::ConfigError;

/// The queue was full: try again later. `retry_after` is what the 503's
/// `Retry-After` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("password hashing is at capacity; retry in {}s", retry_after.as_secs())]
pub struct Busy {
    pub retry_after: Duration,
}

/// The bounds of a [`HashPool`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolLimits {
    /// Jobs running at once (`password.maxConcurrent`); default: the
    /// number of cores.
    pub max_concurrent: usize,
    /// Jobs waiting for a slot (`password.maxQueued`); default 64. Zero:
    /// a job that finds no free slot is refused at once.
    pub max_queued: usize,
}

impl Default for PoolLimits {
    fn default() -> Self {
        PoolLimits { max_concurrent: std::thread::available_parallelism().map_or(1, |n| n.get()), max_queued: 64 }
    }
}

#[derive(Debug)]
struct State {
    running: usize,
    /// The slots not in use, by index (each has its own thread).
    free: Vec<usize>,
    /// The next ticket to hand out, and the ticket allowed to run next:
    /// `next - head` callers are waiting.
    next: u64,
    head: u64,
}

/// Runs hash and verify jobs within [`PoolLimits`]. Shared by every
/// request thread (`Send + Sync`).
pub struct HashPool {
    limits: PoolLimits,
    state: Mutex<State>,
    freed: Condvar,
    threads: Mutex<SlotThreads>,
}

impl std::fmt::Debug for HashPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HashPool").field("limits", &self.limits).finish_non_exhaustive()
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// Each slot's thread, by the slot's index: its job channel, started on
/// first use in this process (`pid`: threads do not survive a fork, so a
/// child starts its own).
#[derive(Default)]
struct SlotThreads {
    pid: u32,
    senders: Vec<Option<mpsc::Sender<Job>>>,
}

impl HashPool {
    /// The limits are validated (`password.maxConcurrent` at least 1).
    pub fn new(limits: PoolLimits) -> Result<Self, ConfigError> {
        if limits.max_concurrent == 0 {
            return Err(ConfigError::new("password.maxConcurrent", "must be at least 1"));
        }
        let state = State { running: 0, free: (0..limits.max_concurrent).rev().collect(), next: 0, head: 0 };
        Ok(HashPool { limits, state: Mutex::new(state), freed: Condvar::new(), threads: Mutex::default() })
    }

    pub fn limits(&self) -> PoolLimits {
        self.limits
    }

    /// Jobs running now.
    pub fn running(&self) -> usize {
        self.lock().running
    }

    /// Jobs waiting for a slot now.
    pub fn queued(&self) -> usize {
        let s = self.lock();
        (s.next - s.head) as usize
    }

    /// Run `job` on a slot's thread once a slot is free, and wait for its
    /// answer; [`Busy`] at once when every slot is taken and the queue is
    /// full. The slot is freed when `job` returns or panics (a panic is
    /// resumed on the caller's thread).
    pub fn run<T: Send + 'static>(&self, job: impl FnOnce() -> T + Send + 'static) -> Result<T, Busy> {
        let slot = self.acquire()?;
        let (answer, answered) = mpsc::sync_channel(1);
        let job: Job = Box::new(move || {
            let _ = answer.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)));
        });
        let outcome = match self.slot_thread(slot.index) {
            Some(sender) => match sender.send(job) {
                Ok(()) => answered.recv().ok(),
                // The thread is gone (it cannot be, but a caller never hangs):
                // run here.
                Err(mpsc::SendError(job)) => {
                    job();
                    answered.recv().ok()
                }
            },
            // No thread could be started: run here.
            None => {
                job();
                answered.recv().ok()
            }
        };
        drop(slot);
        match outcome {
            Some(Ok(value)) => Ok(value),
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            None => std::panic::panic_any("a hashing job ended without an answer"),
        }
    }

    /// The job channel of slot `index`'s thread, started now if this
    /// process has none (the first use, or the first after a fork).
    fn slot_thread(&self, index: usize) -> Option<mpsc::Sender<Job>> {
        let mut threads = self.threads.lock().unwrap_or_else(PoisonError::into_inner);
        let pid = std::process::id();
        if threads.pid != pid {
            threads.pid = pid;
            threads.senders = (0..self.limits.max_concurrent).map(|_| None).collect();
        }
        if threads.senders[index].is_none() {
            let (sender, jobs) = mpsc::channel::<Job>();
            let started = std::thread::Builder::new().name(format!("libauth-hash-{index}")).spawn(move || {
                for job in jobs {
                    job();
                }
            });
            if started.is_err() {
                return None;
            }
            threads.senders[index] = Some(sender);
        }
        threads.senders[index].clone()
    }

    fn acquire(&self) -> Result<Slot<'_>, Busy> {
        let mut s = self.lock();
        let waiting = (s.next - s.head) as usize;
        if waiting == 0 && s.running < self.limits.max_concurrent {
            s.running += 1;
            let index = s.free.pop().expect("a slot is free");
            return Ok(Slot { pool: self, index });
        }
        if waiting >= self.limits.max_queued {
            return Err(Busy { retry_after: Duration::from_secs(1) });
        }
        let ticket = s.next;
        s.next += 1;
        while !(s.head == ticket && s.running < self.limits.max_concurrent) {
            s = self.freed.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
        s.head += 1;
        s.running += 1;
        let index = s.free.pop().expect("a slot is free");
        drop(s);
        // The next in line may find a slot free too (several freed at once).
        self.freed.notify_all();
        Ok(Slot { pool: self, index })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A held slot; dropping it (also while unwinding) frees it.
struct Slot<'a> {
    pool: &'a HashPool,
    index: usize,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut s = self.pool.lock();
        s.running -= 1;
        s.free.push(self.index);
        drop(s);
        self.pool.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Barrier};
    use std::time::Instant;

    use super::*;

    #[test]
    fn zero_slots_is_refused_by_option_name() {
        let e = HashPool::new(PoolLimits { max_concurrent: 0, max_queued: 1 }).unwrap_err();
        assert_eq!(e.option, "password.maxConcurrent");
        assert!(PoolLimits::default().max_concurrent >= 1);
        assert_eq!(PoolLimits::default().max_queued, 64);
    }

    /// Ten callers at once on two slots with room for all in the queue:
    /// every job runs, never more than two at a time.
    #[test]
    fn never_more_than_n_at_once() {
        let pool = Arc::new(HashPool::new(PoolLimits { max_concurrent: 2, max_queued: 64 }).unwrap());
        let now = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let start = Arc::new(Barrier::new(10));
        let threads: Vec<_> = (0..10)
            .map(|_| {
                let (pool, now, peak, start) = (pool.clone(), now.clone(), peak.clone(), start.clone());
                std::thread::spawn(move || {
                    start.wait();
                    pool.run(move || {
                        let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                        peak.fetch_max(n, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(20));
                        now.fetch_sub(1, Ordering::SeqCst);
                    })
                })
            })
            .collect();
        let results: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert!(results.iter().all(Result::is_ok));
        assert_eq!(peak.load(Ordering::SeqCst), 2);
        assert_eq!((pool.running(), pool.queued()), (0, 0));
    }

    /// Two slots held and a queue of three full: the other five callers
    /// are refused at once; when the slots free, the queued three run.
    #[test]
    fn past_the_queue_callers_are_refused_at_once() {
        let pool = Arc::new(HashPool::new(PoolLimits { max_concurrent: 2, max_queued: 3 }).unwrap());
        let release = Arc::new((Mutex::new(false), Condvar::new()));
        let now = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let spawn = |pool: &Arc<HashPool>| {
            let (pool, release, now, peak) = (pool.clone(), release.clone(), now.clone(), peak.clone());
            std::thread::spawn(move || {
                pool.run(move || {
                    let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(n, Ordering::SeqCst);
                    let (lock, cv) = &*release;
                    let mut go = lock.lock().unwrap();
                    while !*go {
                        go = cv.wait(go).unwrap();
                    }
                    drop(go);
                    now.fetch_sub(1, Ordering::SeqCst);
                })
            })
        };
        let wait_until = |what: &dyn Fn() -> bool| {
            let deadline = Instant::now() + Duration::from_secs(10);
            while !what() {
                assert!(Instant::now() < deadline, "timed out");
                std::thread::sleep(Duration::from_millis(1));
            }
        };
        let mut admitted = Vec::new();
        for _ in 0..2 {
            admitted.push(spawn(&pool));
        }
        wait_until(&|| pool.running() == 2);
        for _ in 0..3 {
            admitted.push(spawn(&pool));
        }
        wait_until(&|| pool.queued() == 3);
        // The other five: refused, each at once.
        let refused: Vec<_> = (0..5)
            .map(|_| {
                let pool = pool.clone();
                std::thread::spawn(move || {
                    let t = Instant::now();
                    let r = pool.run(|| ());
                    (r, t.elapsed())
                })
            })
            .collect();
        for t in refused {
            let (r, took) = t.join().unwrap();
            assert_eq!(r, Err(Busy { retry_after: Duration::from_secs(1) }));
            assert!(took < Duration::from_secs(1), "refused after {took:?}");
        }
        assert_eq!((pool.running(), pool.queued()), (2, 3));
        {
            let (lock, cv) = &*release;
            *lock.lock().unwrap() = true;
            cv.notify_all();
        }
        for t in admitted {
            assert!(t.join().unwrap().is_ok());
        }
        assert_eq!(peak.load(Ordering::SeqCst), 2);
        assert_eq!((pool.running(), pool.queued()), (0, 0));
    }

    /// Jobs run on the slots' own threads, never more threads than slots
    /// however many callers (so only that many allocator arenas ever hold
    /// hashing memory).
    #[test]
    fn jobs_run_on_one_thread_per_slot() {
        let pool = Arc::new(HashPool::new(PoolLimits { max_concurrent: 2, max_queued: 64 }).unwrap());
        let callers: Vec<_> = (0..12)
            .map(|_| {
                let pool = pool.clone();
                std::thread::spawn(move || {
                    pool.run(|| {
                        std::thread::sleep(Duration::from_millis(5));
                        std::thread::current().name().map(str::to_owned)
                    })
                })
            })
            .collect();
        let mut names: Vec<String> = callers.into_iter().map(|t| t.join().unwrap().unwrap().unwrap()).collect();
        names.sort();
        names.dedup();
        assert!(names.len() <= 2 && names.iter().all(|n| n.starts_with("libauth-hash-")), "{names:?}");
    }

    #[test]
    fn a_panicking_job_frees_its_slot() {
        let pool = HashPool::new(PoolLimits { max_concurrent: 1, max_queued: 0 }).unwrap();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pool.run(|| panic!("job failed"))));
        assert!(r.is_err());
        assert_eq!(pool.running(), 0);
        assert_eq!(pool.run(|| 7), Ok(7));
    }
}
