//! The addon's own worker threads: engine calls that may call JavaScript
//! hooks run here, never on libuv's pool (a hook that awaits fs or crypto
//! work needs a libuv worker; if all of them were blocked waiting for hooks,
//! nothing would progress) and never on the JavaScript thread (it must stay
//! free to run the hooks).
//!
//! Elastic: a job starts at once on an idle worker or on a new one; there is
//! no fixed thread count for a slow hook to exhaust. What bounds the threads
//! is the engine's admission (`hooks.maxInFlight`, see `Auth::admit`): a job
//! exists only for an admitted request, so at most that many run. Workers
//! have small stacks (their pages are only touched as used), and one idle
//! for [`IDLE_EXIT`] exits, so a burst of slow hooks leaves nothing behind.
//! Created lazily on the first job, so a process that forks before serving
//! does not fork live threads.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::Duration;

type Job = Box<dyn FnOnce() + Send + 'static>;

/// How long an idle worker waits for a job before it exits.
const IDLE_EXIT: Duration = Duration::from_secs(10);
/// Stack of a worker: the engine's deepest path (page rendering, JSON)
/// needs far less; the memory is reserved, not touched.
const STACK_SIZE: usize = 512 * 1024;

struct State {
    jobs: VecDeque<Job>,
    threads: usize,
    idle: usize,
}

pub struct Pool {
    state: Mutex<State>,
    ready: Condvar,
}

static POOL: OnceLock<Pool> = OnceLock::new();

fn pool() -> &'static Pool {
    POOL.get_or_init(|| Pool {
        state: Mutex::new(State { jobs: VecDeque::new(), threads: 0, idle: 0 }),
        ready: Condvar::new(),
    })
}

/// Run `job` on a worker thread, at once.
pub fn spawn(job: impl FnOnce() + Send + 'static) {
    pool().submit(Box::new(job));
}

/// How many worker threads exist now (0 until the first job).
pub fn thread_count() -> usize {
    POOL.get().map(|p| p.state.lock().unwrap_or_else(|e| e.into_inner()).threads).unwrap_or(0)
}

impl Pool {
    fn submit(&'static self, job: Job) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.jobs.push_back(job);
        // Every queued job beyond the idle workers gets a new worker.
        if state.idle < state.jobs.len() {
            let n = state.threads;
            let spawned = std::thread::Builder::new()
                .name(format!("libauth-{n}"))
                .stack_size(STACK_SIZE)
                .spawn(move || self.work());
            if spawned.is_ok() {
                state.threads += 1;
            }
            // If the OS refuses a thread, the job waits for the next free
            // worker (at least one exists or is being created).
        }
        drop(state);
        self.ready.notify_one();
    }

    fn work(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(job) = state.jobs.pop_front() {
                drop(state);
                // A panicking job must not take the worker down with it;
                // the job itself reports its outcome (see `lib.rs`).
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                state = self.state.lock().unwrap_or_else(|e| e.into_inner());
                continue;
            }
            state.idle += 1;
            let (next, waited) = self.ready.wait_timeout(state, IDLE_EXIT).unwrap_or_else(|e| e.into_inner());
            state = next;
            state.idle -= 1;
            if waited.timed_out() && state.jobs.is_empty() {
                state.threads -= 1;
                return;
            }
        }
    }
}
