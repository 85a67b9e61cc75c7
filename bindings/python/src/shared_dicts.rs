//! The dicts of shared sessions: without hooks, every read of one cached
//! cookie answers the same session (see `libauth_core::SharedKey`), so its
//! dict is built once and each read gets a copy (two dict copies, no string
//! made again). Copies, because the caller owns what it gets and may change
//! it; the kept dict is never handed out.
//!
//! Bounded: past [`SharedDicts::MAX`] sessions the dicts are dropped and
//! built again as they are read. A kept dict holds its session (a few
//! hundred bytes) until then.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use libauth_core::SharedKey;
use pyo3::prelude::*;
use pyo3::types::PyDict;

#[derive(Default)]
pub(crate) struct SharedDicts {
    kept: Mutex<HashMap<SharedKey, Py<PyDict>>>,
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
        let found = self.lock().get(&key).map(|d| d.clone_ref(py));
        let kept = match found {
            Some(dict) => dict.into_bound(py),
            None => {
                let dict = build()?;
                let mut kept = self.lock();
                if kept.len() >= Self::MAX {
                    kept.clear();
                }
                kept.insert(key, dict.clone().unbind());
                dict
            }
        };
        copy(&kept)
    }

    /// A poisoned lock still holds a consistent map: every change is one
    /// call that cannot unwind half-way.
    fn lock(&self) -> MutexGuard<'_, HashMap<SharedKey, Py<PyDict>>> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// `dict` and the dicts in it (`user`) copied; strings and numbers are
/// immutable and shared.
fn copy<'py>(dict: &Bound<'py, PyDict>) -> PyResult<Bound<'py, PyDict>> {
    let out = dict.copy()?;
    for (key, value) in dict.iter() {
        if let Ok(inner) = value.cast::<PyDict>() {
            out.set_item(key, copy(inner)?)?;
        }
    }
    Ok(out)
}
