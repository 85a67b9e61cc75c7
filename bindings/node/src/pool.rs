//! The addon's own worker threads: engine calls that may call JavaScript
//! hooks run here, never on libuv's pool (a hook that awaits fs or crypto
//! work needs a libuv worker; if all of them were blocked waiting for hooks,
//! nothing would progress) and never on the JavaScript thread (it must stay
//! free to run the hooks).
//!
//! Created lazily on the first job (so a process that forks before serving
//! does not fork live threads) and grown on demand up to a limit
//! (`LIBAUTH_THREADS`, default 16). A worker blocked on a hook holds one
//! slot; jobs beyond the limit wait in the queue, so at most `limit` hook
//! calls are ever queued towards the JavaScript thread.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, OnceLock};

type Job = Box<dyn FnOnce() + Send + 'static>;

struct State {
    jobs: VecDeque<Job>,
    threads: usize,
    idle: usize,
}

pub struct Pool {
    state: Mutex<State>,
    ready: Condvar,
    limit: usize,
}

static POOL: OnceLock<Pool> = OnceLock::new();

const DEFAULT_THREADS: usize = 16;

/// Run `job` on a worker thread.
pub fn spawn(job: impl FnOnce() + Send + 'static) {
    let pool = POOL.get_or_init(|| {
        let limit = std::env::var("LIBAUTH_THREADS")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|n| *n > 0)
            .unwrap_or(DEFAULT_THREADS);
        Pool { state: Mutex::new(State { jobs: VecDeque::new(), threads: 0, idle: 0 }), ready: Condvar::new(), limit }
    });
    pool.submit(Box::new(job));
}

/// How many worker threads exist now (0 until the first job).
pub fn thread_count() -> usize {
    POOL.get().map(|p| p.state.lock().unwrap_or_else(|e| e.into_inner()).threads).unwrap_or(0)
}

impl Pool {
    fn submit(&'static self, job: Job) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.jobs.push_back(job);
        // Queued jobs beyond the idle workers need new workers, up to the limit.
        if state.idle < state.jobs.len() && state.threads < self.limit {
            let n = state.threads;
            let spawned = std::thread::Builder::new()
                .name(format!("libauth-worker-{n}"))
                .stack_size(512 * 1024)
                .spawn(move || self.work());
            if spawned.is_ok() {
                state.threads += 1;
            }
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
            state = self.ready.wait(state).unwrap_or_else(|e| e.into_inner());
            state.idle -= 1;
        }
    }
}
