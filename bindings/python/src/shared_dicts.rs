//! The dicts of shared sessions: without hooks, every read of one cached
//! cookie answers the same session (see `libauth_core::SharedKey`), so its
//! dict is built once and each read gets a copy (the dict, the dicts in
//! it, `user`, and its lists of plain values, `amr`; no string is made
//! again). Copies, because the caller owns
//! what it gets and may change it; the kept dict is never handed out.
//!
//! Bounded: past [`SharedDicts::MAX`] sessions the dicts are dropped and
//! built again as they are read. A kept dict holds its session (a few
//! hundred bytes) until then.

use std::sync::{Mutex, MutexGuard};

use libauth_core::SharedKey;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rustc_hash::FxHashMap;

#[derive(Default)]
pub(crate) struct SharedDicts {
    kept: Mutex<FxHashMap<SharedKey, Kept>>,
}

/// A session's dict, never handed out, and how to copy it: the keys in it
/// whose values are dicts (`user`) or lists (`amr`) of plain values, or,
/// when anything deeper sits anywhere (a token with odd claims), a copy of
/// every container.
struct Kept {
    dict: Py<PyDict>,
    /// The identity's fields as `SessionWithIdentity._identity` holds
    /// them (a tuple of immutable values: shared by every copy).
    identity: Option<Py<PyAny>>,
    nested: Vec<Py<PyAny>>,
    lists: Vec<Py<PyAny>>,
    deep: bool,
}

impl Kept {
    fn new((dict, identity): Built<'_>) -> Kept {
        let mut nested = Vec::new();
        let mut lists = Vec::new();
        let mut deep = false;
        for (key, value) in dict.iter() {
            if let Ok(inner) = value.cast::<PyDict>() {
                nested.push(key.unbind());
                deep |= inner.values().iter().any(|v| is_container(&v));
            } else if let Ok(inner) = value.cast::<PyList>() {
                lists.push(key.unbind());
                deep |= inner.iter().any(|v| is_container(&v));
            }
        }
        Kept { dict: dict.unbind(), identity: identity.map(Bound::unbind), nested, lists, deep }
    }

    fn copy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = self.dict.bind(py);
        if self.deep {
            return Ok(deep_copy(dict.as_any())?.cast_into::<PyDict>()?);
        }
        let out = dict.copy()?;
        self.copy_nested(dict, &out)?;
        Ok(out)
    }

    /// The copy made in `out`, an empty `SessionWithIdentity`, with the
    /// identity's fields in its `_identity`.
    fn copy_into(&self, py: Python<'_>, out: &Bound<'_, PyDict>) -> PyResult<()> {
        let dict = self.dict.bind(py);
        if self.deep {
            for (k, v) in dict.iter() {
                out.set_item(k, deep_copy(&v)?)?;
            }
        } else {
            out.update(dict.as_mapping())?;
            self.copy_nested(dict, out)?;
        }
        if let Some(identity) = &self.identity {
            out.setattr(pyo3::intern!(py, "_identity"), identity.bind(py))?;
        }
        Ok(())
    }

    /// The dicts (`user`) and lists (`amr`) in the kept dict copied into
    /// `out`.
    fn copy_nested(&self, dict: &Bound<'_, PyDict>, out: &Bound<'_, PyDict>) -> PyResult<()> {
        for key in &self.nested {
            if let Some(inner) = dict.get_item(key)? {
                out.set_item(key, inner.cast_into::<PyDict>()?.copy()?)?;
            }
        }
        for key in &self.lists {
            if let Some(inner) = dict.get_item(key)? {
                let list = inner.cast_into::<PyList>()?;
                out.set_item(key, list.get_slice(0, list.len()))?;
            }
        }
        Ok(())
    }
}

/// What a kept session is built from: its dict, and the identity's fields
/// (`None` for a session without one).
pub(crate) type Built<'py> = (Bound<'py, PyDict>, Option<Bound<'py, PyAny>>);

fn is_container(value: &Bound<'_, PyAny>) -> bool {
    value.is_instance_of::<PyDict>() || value.is_instance_of::<PyList>()
}

/// Every dict and list in `value` copied; the rest (str, int, float, bool,
/// None: immutable) shared.
fn deep_copy<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = value.py();
    if let Ok(dict) = value.cast::<PyDict>() {
        let out = PyDict::new(py);
        for (k, v) in dict.iter() {
            out.set_item(k, deep_copy(&v)?)?;
        }
        return Ok(out.into_any());
    }
    if let Ok(list) = value.cast::<PyList>() {
        let out = PyList::empty(py);
        for item in list.iter() {
            out.append(deep_copy(&item)?)?;
        }
        return Ok(out.into_any());
    }
    Ok(value.clone())
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
        build: impl FnOnce() -> PyResult<Built<'py>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        // Copied under the lock: a copy of str keys and values runs no
        // Python code, so nothing can come back here meanwhile.
        if let Some(kept) = self.lock().get(&key) {
            return kept.copy(py);
        }
        let kept = Kept::new(build()?);
        let out = kept.copy(py);
        self.keep(key, kept);
        out
    }

    /// `dict`'s copy made in `out`, an empty `SessionWithIdentity`: the
    /// same items, in the same order, and the identity's fields.
    pub(crate) fn copy_into<'py>(
        &self,
        py: Python<'py>,
        key: SharedKey,
        out: &Bound<'py, PyDict>,
        build: impl FnOnce() -> PyResult<Built<'py>>,
    ) -> PyResult<()> {
        if let Some(kept) = self.lock().get(&key) {
            return kept.copy_into(py, out);
        }
        let kept = Kept::new(build()?);
        let done = kept.copy_into(py, out);
        self.keep(key, kept);
        done
    }

    fn keep(&self, key: SharedKey, kept: Kept) {
        let mut all = self.lock();
        if all.len() >= Self::MAX {
            all.clear();
        }
        all.insert(key, kept);
    }

    /// A poisoned lock still holds a consistent map: every change is one
    /// call that cannot unwind half-way.
    fn lock(&self) -> MutexGuard<'_, FxHashMap<SharedKey, Kept>> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }
}
