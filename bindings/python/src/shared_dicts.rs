//! The dicts of shared sessions: without hooks, every read of one cached
//! cookie answers the same session (see `libauth_core::SharedKey`), so its
//! dict is built once and each read gets a copy (the dict and the dicts in
//! it, `user`; no string is made again). Copies, because the caller owns
//! what it gets and may change it; the kept dict is never handed out.
//!
//! Bounded: past [`SharedDicts::MAX`] sessions the dicts are dropped and
//! built again as they are read. A kept dict holds its session (a few
//! hundred bytes) until then.

use std::sync::{Mutex, MutexGuard};

use libauth_core::SharedKey;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rustc_hash::FxHashMap;

#[derive(Default)]
pub(crate) struct SharedDicts {
    kept: Mutex<FxHashMap<SharedKey, Kept>>,
}

/// A session's dict, never handed out, and the keys in it whose values
/// are dicts (`user`): a read copies the dict and those.
struct Kept {
    dict: Py<PyDict>,
    nested: Vec<Py<PyAny>>,
}

impl Kept {
    fn copy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = self.dict.bind(py);
        let out = dict.copy()?;
        for key in &self.nested {
            if let Some(inner) = dict.get_item(key)? {
                out.set_item(key, inner.cast_into::<PyDict>()?.copy()?)?;
            }
        }
        Ok(out)
    }
}

impl SharedDicts {
    /// As many as the session cache holds by default.
    const MAX: usize = 1024;

    /// A new dict for the shared session `key`: a copy of the one kept for
    /// it, which `build` makes on the first read.
    pub(crate) fn dict<'py>(
        &self,
        py: Python<'py>,
        key: SharedKey,
        build: impl FnOnce() -> PyResult<Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        // Copied under the lock: a copy of str keys and values runs no
        // Python code, so nothing can come back here meanwhile.
        if let Some(kept) = self.lock().get(&key) {
            return kept.copy(py);
        }
        let dict = build()?;
        let nested =
            dict.iter().filter(|(_, value)| value.is_instance_of::<PyDict>()).map(|(k, _)| k.unbind()).collect();
        let kept = Kept { dict: dict.unbind(), nested };
        let out = kept.copy(py);
        let mut all = self.lock();
        if all.len() >= Self::MAX {
            all.clear();
        }
        all.insert(key, kept);
        out
    }

    /// A poisoned lock still holds a consistent map: every change is one
    /// call that cannot unwind half-way.
    fn lock(&self) -> MutexGuard<'_, FxHashMap<SharedKey, Kept>> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }
}
