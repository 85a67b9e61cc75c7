//! `getSessionSync(url, cookie, slots)`: the engine call of every protected
//! route (`getSession(req, config)` under a hookless configuration), written
//! as a plain N-API function rather than a `#[napi]` method.
//!
//! napi-rs's generated method glue costs more per call than everything else
//! here but the engine: it allocates a borrow-tracking scope, registers the
//! receiver in a global mutex-guarded SipHash map, looks up the receiver's
//! class, and converts each string argument with a length query and a fresh
//! zeroed allocation. This function is bound to its engine through its own
//! data pointer (no receiver to unwrap or to confuse with another class), and
//! reads its two strings into buffers reused from call to call. Only
//! `create_auth` makes it, one per `NativeAuth`, as that object's own
//! `getSessionSync` property.
//!
//! The session goes back as its parts, not as JSON: a hookless session is
//! always `{ user: { name?, email?, image? }, expires }`, and when every
//! part is a string (or `null`) they are written into the caller's `slots`
//! array, from which `lib/native.js` builds the object. Serialising to JSON
//! here and parsing it there cost three times as much. A session of any
//! other shape (a claim holding a number or an object, say) still goes back
//! as JSON.

use std::cell::RefCell;
use std::ffi::{c_char, c_void};
use std::ptr;
use std::sync::Arc;

use libauth_core::{Auth, AuthRequest, Session};
use napi::bindgen_prelude::JsError;
use napi::{sys, Error, Status};
use serde_json::Value;

/// What a `getSessionSync` function reads sessions with (its data pointer).
struct Bound {
    auth: Arc<Auth>,
    inline_session: bool,
}

/// The request handed to the engine, kept between calls so that its strings
/// keep their buffers: the method is always `GET`, the cookie header is the
/// only header.
struct Scratch {
    req: AuthRequest,
    /// The `cookie` header entry while `req` carries none (its buffer kept).
    parked_cookie: Option<(String, String)>,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch { req: AuthRequest::get(String::with_capacity(256)), parked_cookie: None }
    }

    /// The cookie header's value buffer, the header present in `req`.
    fn cookie_header(&mut self) -> &mut String {
        if self.req.headers.is_empty() {
            let entry = self.parked_cookie.take().unwrap_or_else(|| ("cookie".to_owned(), String::with_capacity(1024)));
            self.req.headers.push(entry);
        }
        &mut self.req.headers[0].1
    }

    /// No cookie header in `req` (an absent or empty Cookie header).
    fn no_cookie_header(&mut self) {
        if let Some(entry) = self.req.headers.pop() {
            self.parked_cookie = Some(entry);
        }
    }
}

thread_local! {
    // Per thread: a `getSessionSync` runs on the JavaScript thread that
    // called it (the main thread or a worker's), to completion.
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::new());
}

/// A new `getSessionSync(url, cookie)` function reading sessions with `auth`.
/// The function owns a reference to the engine, released when it is
/// garbage-collected.
pub fn create(env: sys::napi_env, auth: Arc<Auth>, inline_session: bool) -> napi::Result<sys::napi_value> {
    const NAME: &str = "getSessionSync";
    let bound = Box::into_raw(Box::new(Bound { auth, inline_session }));
    let mut function = ptr::null_mut();
    // SAFETY: `bound` stays valid until the finalizer below frees it, which
    // N-API runs only once the function can no longer be called.
    unsafe {
        let status = sys::napi_create_function(
            env,
            NAME.as_ptr().cast(),
            NAME.len() as isize,
            Some(get_session_sync),
            bound.cast(),
            &mut function,
        );
        if status != sys::Status::napi_ok {
            drop(Box::from_raw(bound));
            return Err(Error::new(Status::from(status), "libauth: cannot create getSessionSync"));
        }
        let status = sys::napi_wrap(env, function, bound.cast(), Some(release), ptr::null_mut(), ptr::null_mut());
        if status != sys::Status::napi_ok {
            drop(Box::from_raw(bound));
            return Err(Error::new(Status::from(status), "libauth: cannot create getSessionSync"));
        }
    }
    Ok(function)
}

unsafe extern "C" fn release(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    // SAFETY: `data` is the `Box<Bound>` leaked in `create`; N-API calls this once.
    drop(unsafe { Box::from_raw(data.cast::<Bound>()) });
}

/// `getSessionSync(url: string, cookie: string | null | undefined, slots?: any[]): true | string | null`:
/// the session, computed on this thread: `true` when its parts are in
/// `slots` (see the module comment), else as JSON, or `null` for none;
/// throws where the engine fails, and when the configuration can reach a
/// hook.
unsafe extern "C" fn get_session_sync(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    let run = std::panic::AssertUnwindSafe(|| unsafe { read_session(env, info) });
    let outcome = std::panic::catch_unwind(run).unwrap_or_else(|_| {
        Err(Error::new(Status::GenericFailure, "libauth: internal error while reading the session"))
    });
    match outcome {
        Ok(value) => value,
        Err(e) => {
            unsafe { JsError::from(e).throw_into(env) };
            ptr::null_mut()
        }
    }
}

unsafe fn read_session(env: sys::napi_env, info: sys::napi_callback_info) -> napi::Result<sys::napi_value> {
    let mut argc = 3;
    let mut argv = [ptr::null_mut(); 3];
    let mut data = ptr::null_mut();
    check(unsafe { sys::napi_get_cb_info(env, info, &mut argc, argv.as_mut_ptr(), ptr::null_mut(), &mut data) })?;
    // SAFETY: the data pointer of this function is always its `Bound`.
    let bound = unsafe { &*data.cast::<Bound>() };
    if !bound.inline_session {
        return Err(Error::new(Status::GenericFailure, "getSessionSync needs a configuration without session hooks"));
    }
    let read = |scratch: &mut Scratch| -> napi::Result<Option<Session>> {
        unsafe { read_string(env, argv[0], &mut scratch.req.url) }?;
        if !unsafe { read_optional_string(env, argv[1], scratch.cookie_header()) }? {
            scratch.no_cookie_header();
        } else if scratch.req.headers[0].1.is_empty() {
            // As for an absent one: an empty Cookie header is no header.
            scratch.no_cookie_header();
        }
        bound.auth.get_session(&scratch.req).map_err(|e| Error::new(Status::GenericFailure, e.to_string()))
    };
    // The engine calls no JavaScript here (hookless), so this never nests;
    // a fresh request would do if it did.
    let session = SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut scratch) => read(&mut scratch),
        Err(_) => read(&mut Scratch::new()),
    })?;
    let mut value = ptr::null_mut();
    let Some(session) = session else {
        check(unsafe { sys::napi_get_null(env, &mut value) })?;
        return Ok(value);
    };
    // `slots` is optional: without an array there, the answer is JSON.
    let mut is_array = false;
    if argc >= 3 {
        check(unsafe { sys::napi_is_array(env, argv[2], &mut is_array) })?;
    }
    match SessionParts::of(&session) {
        Some(parts) if is_array => {
            unsafe { parts.write(env, argv[2]) }?;
            check(unsafe { sys::napi_get_boolean(env, true, &mut value) })?;
        }
        _ => value = unsafe { js_string(env, &session.to_json()) }?,
    }
    Ok(value)
}

/// A session's parts as `slots` carries them: `name`, `email`, `image`,
/// `expires`.
struct SessionParts<'a>([Part<'a>; 4]);

#[derive(Clone, Copy)]
enum Part<'a> {
    /// Not in the session (the slot holds `undefined`).
    Absent,
    Null,
    Text(&'a str),
}

impl<'a> SessionParts<'a> {
    /// The parts of a session shaped `{ user: { name?, email?, image? },
    /// expires }`, keys in that order, every value a string (or `null` in
    /// `user`); `None` for anything else.
    fn of(session: &'a Session) -> Option<SessionParts<'a>> {
        let mut entries = session.0.iter();
        let (Some(("user", Value::Object(user))), Some(("expires", Value::String(expires))), None) = (
            entries.next().map(|(k, v)| (k.as_str(), v)),
            entries.next().map(|(k, v)| (k.as_str(), v)),
            entries.next(),
        ) else {
            return None;
        };
        let mut parts = [Part::Absent, Part::Absent, Part::Absent, Part::Text(expires)];
        // `next` only moves forward: keys out of order or repeated fail.
        let mut next = 0;
        for (key, value) in user {
            let index = ["name", "email", "image"][next..].iter().position(|k| k == key)? + next;
            parts[index] = match value {
                Value::String(s) => Part::Text(s),
                Value::Null => Part::Null,
                _ => return None,
            };
            next = index + 1;
        }
        Some(SessionParts(parts))
    }

    /// Write the four parts into `slots[0..4]`.
    unsafe fn write(&self, env: sys::napi_env, slots: sys::napi_value) -> napi::Result<()> {
        for (index, part) in self.0.iter().enumerate() {
            let mut value = ptr::null_mut();
            match part {
                Part::Absent => check(unsafe { sys::napi_get_undefined(env, &mut value) })?,
                Part::Null => check(unsafe { sys::napi_get_null(env, &mut value) })?,
                Part::Text(s) => value = unsafe { js_string(env, s) }?,
            }
            check(unsafe { sys::napi_set_element(env, slots, index as u32, value) })?;
        }
        Ok(())
    }
}

/// A JavaScript string of `s`: Latin-1 when `s` is ASCII (the same
/// characters, and V8 then copies the bytes instead of decoding them).
unsafe fn js_string(env: sys::napi_env, s: &str) -> napi::Result<sys::napi_value> {
    let mut value = ptr::null_mut();
    let status = if s.is_ascii() {
        unsafe { sys::napi_create_string_latin1(env, s.as_ptr().cast(), s.len() as isize, &mut value) }
    } else {
        unsafe { sys::napi_create_string_utf8(env, s.as_ptr().cast(), s.len() as isize, &mut value) }
    };
    check(status)?;
    Ok(value)
}

/// Read a JavaScript string into `buf` (as UTF-8, lone surrogates replaced,
/// as napi-rs's `String` conversion does), reusing its allocation.
unsafe fn read_string(env: sys::napi_env, value: sys::napi_value, buf: &mut String) -> napi::Result<()> {
    match unsafe { try_read_string(env, value, buf) } {
        sys::Status::napi_ok => Ok(()),
        status => Err(Error::new(Status::from(status), "getSessionSync: the URL must be a string")),
    }
}

/// Read a string, or `false` for `null` / `undefined`.
unsafe fn read_optional_string(env: sys::napi_env, value: sys::napi_value, buf: &mut String) -> napi::Result<bool> {
    match unsafe { try_read_string(env, value, buf) } {
        sys::Status::napi_ok => return Ok(true),
        sys::Status::napi_string_expected => {}
        status => return Err(Error::new(Status::from(status), "getSessionSync: cannot read the cookie")),
    }
    let mut kind = 0;
    check(unsafe { sys::napi_typeof(env, value, &mut kind) })?;
    match kind {
        sys::ValueType::napi_null | sys::ValueType::napi_undefined => Ok(false),
        _ => Err(Error::new(Status::StringExpected, "getSessionSync: the cookie must be a string, null or undefined")),
    }
}

/// One N-API read into `buf`'s spare capacity; only a string that may not
/// have fitted is measured and read again.
unsafe fn try_read_string(env: sys::napi_env, value: sys::napi_value, buf: &mut String) -> sys::napi_status {
    // SAFETY: N-API writes valid UTF-8 (whole characters only) and we keep
    // exactly the bytes it reports written.
    let bytes = unsafe { buf.as_mut_vec() };
    bytes.clear();
    let mut written = 0;
    let status = unsafe {
        sys::napi_get_value_string_utf8(env, value, bytes.as_mut_ptr().cast::<c_char>(), bytes.capacity(), &mut written)
    };
    if status != sys::Status::napi_ok {
        return status;
    }
    // N-API writes at most capacity - 1 bytes (then a NUL) and stops before a
    // character that does not fit, up to 4 bytes: with fewer than 4 bytes
    // of room left unused, the string may go on.
    if written + 5 > bytes.capacity() {
        let mut len = 0;
        let status = unsafe { sys::napi_get_value_string_utf8(env, value, ptr::null_mut(), 0, &mut len) };
        if status != sys::Status::napi_ok {
            return status;
        }
        bytes.reserve(len + 1);
        let status = unsafe {
            sys::napi_get_value_string_utf8(
                env,
                value,
                bytes.as_mut_ptr().cast::<c_char>(),
                bytes.capacity(),
                &mut written,
            )
        };
        if status != sys::Status::napi_ok {
            return status;
        }
    }
    // SAFETY: `written` bytes were initialised by N-API, within capacity.
    unsafe { bytes.set_len(written) };
    sys::Status::napi_ok
}

fn check(status: sys::napi_status) -> napi::Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Error::new(Status::from(status), "libauth: N-API call failed in getSessionSync"))
    }
}
